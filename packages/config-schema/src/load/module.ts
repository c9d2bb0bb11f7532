import { readFileSync, statSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { createJiti } from "jiti";
import type { IssueSink } from "../issues.js";
import type { FoundFile } from "./files.js";
import type { YamlCache } from "./yaml-cache.js";
import { fastYamlData, yamlPackageData } from "./yaml-data.js";

export type Loaded = { ok: true; value: unknown } | { ok: false };

export interface ModuleLoader {
  import(abs: string): Promise<unknown>;
  /** `start`'s YAML data of its last start (yaml-cache.ts). */
  yamlCache?: YamlCache;
}

// Errors of loading (not of running) a module natively: TypeScript that type stripping cannot
// handle (enums, namespaces), extensionless or `.js`-for-`.ts` imports, a Node without stripping,
// and syntax errors, whose position jiti reports.
const FALL_BACK = new Set([
  "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
  "ERR_INVALID_TYPESCRIPT_SYNTAX",
  "ERR_UNKNOWN_FILE_EXTENSION",
  "ERR_MODULE_NOT_FOUND",
  "ERR_UNSUPPORTED_DIR_IMPORT",
  "ERR_REQUIRE_ESM",
  "ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING",
]);

// Node's own import(), not the rewritten one of a test runner (vitest's loader cannot take a
// project file by URL). Inside vitest's vm context even this one has no loader and fails with
// ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING: jiti then loads the file, as before.
const nativeImport = new Function("url", "return import(url)") as (url: string) => Promise<unknown>;

/**
 * Loads agent, tool-server and config modules. Node's own loader first (it strips TypeScript
 * types itself on Node >= 22.18): that costs nothing beyond the module, where jiti's babel
 * transform costs ~250 ms and ~40 MiB at start-up. jiti (loaded only then, with no module or file
 * cache) takes over for what Node cannot load. The file's mtime goes into the URL so a second load
 * in one process sees an edit; `dev` restarts the process anyway.
 */
export function makeModuleLoader(root: string, yamlCache?: YamlCache): ModuleLoader {
  let jiti: ReturnType<typeof createJiti> | undefined;
  const viaJiti = async (abs: string) => {
    jiti ??= (await import("jiti")).createJiti(`${root}/`, {
      moduleCache: false,
      fsCache: false,
      interopDefault: false,
    });
    return jiti.import(abs);
  };
  return {
    yamlCache,
    async import(abs) {
      try {
        return await nativeImport(`${pathToFileURL(abs).href}?mtime=${statSync(abs).mtimeMs}`);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if ((code && FALL_BACK.has(code)) || err instanceof SyntaxError) return viaJiti(abs);
        throw err;
      }
    },
  };
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
async function loadModuleExport(loader: ModuleLoader, f: FoundFile, sink: IssueSink): Promise<Loaded> {
  let mod: Record<string, unknown>;
  try {
    mod = (await loader.import(f.abs)) as Record<string, unknown>;
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
async function loadDataFile(f: FoundFile, sink: IssueSink, cache: YamlCache | undefined): Promise<Loaded> {
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
  const kept = cache?.get(f.rel, text);
  if (kept) return { ok: true, value: kept.value };
  // js-yaml first (smaller, the same data); a file it rejects gets the yaml package's messages.
  const parsed = (await fastYamlData(text)) ?? (await yamlPackageData(text));
  if (!parsed.ok) {
    for (const e of parsed.errors) sink.error(f.rel, e.where, "must be valid YAML", firstLine(e.message));
    return { ok: false };
  }
  cache?.set(f.rel, text, parsed.value);
  return { ok: true, value: parsed.value };
}

export async function loadAny(loader: ModuleLoader, f: FoundFile, sink: IssueSink): Promise<Loaded> {
  return DATA_EXT_SET.has(f.ext)
    ? loadDataFile(f, sink, loader.yamlCache)
    : loadModuleExport(loader, f, sink);
}

const DATA_EXT_SET = new Set([".yaml", ".yml", ".json"]);
