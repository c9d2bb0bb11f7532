// A YAML file's data (#45). js-yaml reads it first: a smaller parser than the yaml package, whose
// load and parse of examples/hello's three gateway files take ~9 ms of CPU against ~24 ms on a first
// start. Its schema resolves scalars as the yaml package's YAML 1.2 core schema does (js-yaml's own
// core schema also reads `1_000` and `0b11` as numbers), and numbers under a top-level `theme` keep
// their source text, so the data is the same (test/yaml-data.test.ts compares both on every YAML
// file in the repository and on edge cases). A file js-yaml rejects, and the few inputs whose data
// the two build differently (null or collection map keys, aliases with a theme), go to the yaml
// package: its messages name every error and the line it starts on (js-yaml stops at the first, and
// at an unclosed quote names a later line).
import type { Schema } from "js-yaml";
import type { Document } from "yaml";

type JsYaml = typeof import("js-yaml");

export type YamlData =
  | { ok: true; value: unknown }
  | { ok: false; errors: { /** `line N`, or "" */ where: string; message: string }[] };

// The yaml package's core schema tests (yaml/dist/schema/common/null.js, core/bool.js, int.js, float.js).
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;
const FLOAT =
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*))$/;

function intOf(text: string): number {
  if (text.startsWith("0o")) return Number.parseInt(text.slice(2), 8);
  if (text.startsWith("0x")) return Number.parseInt(text.slice(2), 16);
  return Number.parseInt(text, 10);
}

function floatOf(text: string): number {
  if (/^\.nan$/i.test(text)) return Number.NaN;
  if (/inf$/i.test(text)) return text.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  return Number.parseFloat(text);
}

/**
 * Map keys the two parsers turn into different object keys (null: "" in yaml, "null" in js-yaml;
 * collections), and explicit keys (`? `): such a file goes to the yaml package. Matches a little
 * more than it must (inside quoted text too); that only costs the faster parse.
 */
const KEYS_YAML_READS_DIFFERENTLY =
  /(?:^|[{,[])[ \t]*(?:-[ \t]+)*(?:\?(?:[ \t]|$)|(?:~|null|Null|NULL)?[ \t]*:(?:[ \t]|$))|[\]}][ \t]*:(?:[ \t]|$)/m;

const ALIAS = /(?:^|[\s[{,:])\*\S/;

interface Parsers {
  load: JsYaml["load"];
  /** Scalars as the yaml package's core schema resolves them. */
  core: Schema;
  /** The same, with numbers kept as their source text (for `theme`). */
  text: Schema;
}

let parsers: Promise<Parsers> | undefined;

async function loadParsers(): Promise<Parsers> {
  const { FAILSAFE_SCHEMA, Type, load } = await import("js-yaml");
  const scalar = (tag: string, test: RegExp, construct: (text: string) => unknown) =>
    new Type(tag, { kind: "scalar", resolve: (text: string) => test.test(text), construct });
  const schema = (asText: boolean) =>
    FAILSAFE_SCHEMA.extend({
      implicit: [
        scalar("tag:yaml.org,2002:null", NULL, () => null),
        scalar("tag:yaml.org,2002:bool", BOOL, (text) => text[0] === "t" || text[0] === "T"),
        scalar("tag:yaml.org,2002:int", INT, asText ? String : intOf),
        scalar("tag:yaml.org,2002:float", FLOAT, asText ? String : floatOf),
      ],
    });
  return { load, core: schema(false), text: schema(true) };
}

/** The file's data, or undefined when the yaml package must read it (an error, or keys read differently). */
export async function fastYamlData(text: string): Promise<YamlData | undefined> {
  if (KEYS_YAML_READS_DIFFERENTLY.test(text)) return undefined;
  parsers ??= loadParsers();
  const { load, core, text: asText } = await parsers;
  try {
    // An empty file is null for the yaml package, undefined for js-yaml.
    const value = load(text, { schema: core }) ?? null;
    // yaml's theme rule looks for the first map key on the way to a scalar: in a top-level
    // sequence that is a nested map's.
    if (Array.isArray(value) && text.includes("theme")) return undefined;
    if (!isMap(value) || !Object.hasOwn(value, "theme")) return { ok: true, value };
    // yaml's visitor changes scalar nodes: an alias under `theme` stays a number there, and an
    // anchor under it is text wherever it is used.
    if (ALIAS.test(text)) return undefined;
    const raw = load(text, { schema: asText }) as Record<string, unknown>;
    value.theme = (themeText({ theme: value.theme }, { theme: raw.theme }) as { theme: unknown }).theme;
    return { ok: true, value };
  } catch {
    // Left to the yaml package: its messages, or its theme rule for keys read differently.
    return undefined;
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Numbers that are map values under `theme` become their source text, as loadDataFile's yaml
 * visitor does (a sequence's own items stay numbers there).
 */
function themeText(value: unknown, raw: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map((item, i) =>
      typeof item === "number" ? item : themeText(item, Array.isArray(raw) ? raw[i] : undefined),
    );
  }
  if (isMap(value)) {
    for (const key of Object.keys(value)) {
      // A number key is text in the other parse (`1.0`, `1`): the two no longer line up.
      if (!isMap(raw) || !Object.hasOwn(raw, key)) throw new Error(`theme key ${key} is read differently`);
      const rawItem = raw[key];
      const item = value[key];
      value[key] =
        typeof item === "number" ? (typeof rawItem === "string" ? rawItem : item) : themeText(item, rawItem);
    }
  }
  return value;
}

/** The yaml package's data, or every syntax error with the line it starts on. */
export async function yamlPackageData(text: string): Promise<YamlData> {
  const yaml = await import("yaml");
  const doc = yaml.parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    return {
      ok: false,
      errors: doc.errors.map((e) => ({
        where: e.linePos?.[0] ? `line ${e.linePos[0].line}` : "",
        message: e.message.replace(/ at line \d+, column \d+:?/, ""),
      })),
    };
  }
  keepThemeScalarsAsText(yaml, doc);
  try {
    return { ok: true, value: doc.toJS() };
  } catch (error) {
    // An alias before its anchor is no parse error to yaml: its toJS() throws.
    return { ok: false, errors: [{ where: "", message: (error as Error).message }] };
  }
}

/**
 * Theme values are CSS text, and the spec writes hex bare: `bg: 111827` or `accent: 001122` would
 * otherwise parse as numbers (losing leading zeros). Plain scalars under a top-level `theme` keep
 * their source text.
 */
function keepThemeScalarsAsText(yaml: typeof import("yaml"), doc: Document): void {
  const { isPair, isScalar } = yaml;
  yaml.visit(doc, {
    Scalar(key, node, path) {
      if (key !== "value" || typeof node.value !== "number" || node.source === undefined) return;
      const first = path.find(isPair);
      if (first && isScalar(first.key) && first.key.value === "theme") node.value = node.source;
    },
  });
}
