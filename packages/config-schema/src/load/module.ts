import { readFileSync } from "node:fs";
import { createJiti } from "jiti";
import { type Document, isPair, isScalar, parseDocument, visit } from "yaml";
import type { IssueSink } from "../issues.js";
import type { FoundFile } from "./files.js";

export type Loaded = { ok: true; value: unknown } | { ok: false };

type Jiti = ReturnType<typeof createJiti>;

/** One jiti per load: no module or file cache, so `dev` sees edits. Imports resolve from each file's folder. */
export function makeModuleLoader(root: string): Jiti {
  return createJiti(`${root}/`, { moduleCache: false, fsCache: false, interopDefault: false });
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = text.split("\n").find((l) => l.trim()) ?? text;
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/**
 * `line:column` (both counted from 1, as editors do) inside `abs` that a load error points at.
 * jiti's parse errors end with `<abs>:<line>:<column>` where babel counts columns from 0; an error
 * thrown while the module runs has V8's position (from 1) in its stack.
 */
function positionIn(err: unknown, abs: string, parse: boolean): string | undefined {
  const text = err instanceof Error ? (parse ? err.message : (err.stack ?? "")) : String(err);
  const escaped = abs.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(text);
  return m ? `${m[1]}:${Number(m[2]) + (parse ? 1 : 0)}` : undefined;
}

const PARSE_ERROR = /^(?:Error: )?(?:ParseError|SyntaxError): /;

/** A module's default export, or its only named export. */
export async function loadModuleExport(jiti: Jiti, f: FoundFile, sink: IssueSink): Promise<Loaded> {
  let mod: Record<string, unknown>;
  try {
    mod = (await jiti.import(f.abs)) as Record<string, unknown>;
  } catch (err) {
    const first = firstLine(err);
    const parse = PARSE_ERROR.test(first);
    const at = positionIn(err, f.abs, parse);
    if (at && parse)
      sink.error(`${f.rel}:${at}`, "", `syntax error: ${first.replace(PARSE_ERROR, "").trim()}`);
    else sink.error(at ? `${f.rel}:${at}` : f.rel, "", "must load as a module", `an error: ${first}`);
    return { ok: false };
  }
  if (mod && typeof mod === "object" && mod.default !== undefined) return { ok: true, value: mod.default };
  const names = Object.keys(mod ?? {}).filter((k) => k !== "default" && k !== "__esModule");
  if (names.length === 1) return { ok: true, value: mod[names[0]!] };
  sink.error(
    f.rel,
    "",
    "must have a default export (or exactly one named export)",
    names.length ? `exports ${names.join(", ")}` : "no exports",
  );
  return { ok: false };
}

/** A YAML or JSON file parsed to plain data; every syntax error is reported with its line. */
export function loadDataFile(f: FoundFile, sink: IssueSink): Loaded {
  let text: string;
  try {
    text = readFileSync(f.abs, "utf8");
  } catch (err) {
    sink.error(f.rel, "", "must be readable", firstLine(err));
    return { ok: false };
  }
  if (f.ext === ".json") {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (err) {
      sink.error(f.rel, "", "must be valid JSON", firstLine(err));
      return { ok: false };
    }
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    for (const e of doc.errors) {
      const where = e.linePos?.[0] ? `line ${e.linePos[0].line}` : "";
      sink.error(
        f.rel,
        where,
        "must be valid YAML",
        firstLine(e.message.replace(/ at line \d+, column \d+:?/, "")),
      );
    }
    return { ok: false };
  }
  keepThemeScalarsAsText(doc);
  return { ok: true, value: doc.toJS() };
}

/**
 * Theme values are CSS text, and the spec writes hex bare: `bg: 111827` or `accent: 001122` would
 * otherwise parse as numbers (losing leading zeros). Plain scalars under a top-level `theme` keep
 * their source text.
 */
function keepThemeScalarsAsText(doc: Document): void {
  visit(doc, {
    Scalar(key, node, path) {
      if (key !== "value" || typeof node.value !== "number" || node.source === undefined) return;
      const first = path.find(isPair);
      if (first && isScalar(first.key) && first.key.value === "theme") node.value = node.source;
    },
  });
}

export async function loadAny(jiti: Jiti, f: FoundFile, sink: IssueSink): Promise<Loaded> {
  return DATA_EXT_SET.has(f.ext) ? loadDataFile(f, sink) : loadModuleExport(jiti, f, sink);
}

const DATA_EXT_SET = new Set([".yaml", ".yml", ".json"]);
