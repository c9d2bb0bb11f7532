// The data of a plain YAML file without loading a parser (#45): block maps of simple keys, block
// sequences of scalars or of such maps, plain and quoted scalars without escapes, and `|`/`>` block scalars (with
// `-`). That is what gateway files are written in, and on a first start js-yaml's load and its first
// parses were ~7 ms of examples/hello's ~20 ms in loadProject. Anything else (flow collections,
// anchors, tags, escapes, multi-line plain scalars, odd keys, tabs, a syntax error) gives undefined
// and js-yaml or the yaml package reads the file as before (yaml-data.ts). Scalars resolve by the
// yaml package's core schema tests, so the data is the same (test/yaml-data.test.ts compares).

/** The yaml package's core schema tests (yaml-data.ts has their source). */
export interface CoreScalars {
  NULL: RegExp;
  BOOL: RegExp;
  INT: RegExp;
  FLOAT: RegExp;
  intOf(text: string): number;
  floatOf(text: string): number;
}

interface Line {
  indent: number;
  text: string;
}

/** Thrown inside: the file is not in the subset. */
const NOT_LITE = new Error("not in the lite subset");

const KEY = /^([A-Za-z_][A-Za-z0-9_./-]*):(?: +(.*))?$/;
// Plain scalars cannot start with an indicator; `-1`, `-x` and `:x` are left to the parsers too.
const PLAIN_START = /^[^-?:,[\]{}#&*!|>'"%@`\s]/;
const BLOCK_HEADER = /^([|>])(-?)(?: +#.*)?$/;

/**
 * The file's data when it is in the subset, else undefined. `asText` keeps numbers as their source
 * text (the theme rule's second read, as yaml-data.ts does with js-yaml).
 */
export function liteYamlData(text: string, core: CoreScalars, asText = false): unknown {
  if (/[\t\r\ufeff]/.test(text)) return undefined;
  const lines: (Line | undefined)[] = text.split("\n").map((raw) => {
    const body = raw.trimStart();
    // A blank or comment-only line: kept as a gap (block scalars look at them).
    return body === "" || body.startsWith("#") ? undefined : { indent: raw.length - body.length, text: raw };
  });
  const reader = new Reader(text.split("\n"), lines, core, asText);
  try {
    const first = reader.next();
    if (first?.indent !== 0) return undefined;
    const value = reader.block(0);
    return reader.next() ? undefined : value;
  } catch (error) {
    if (error === NOT_LITE) return undefined;
    throw error;
  }
}

class Reader {
  at = 0;
  constructor(
    private readonly raw: string[],
    /** Content lines (undefined: blank or comment); a sequence's map item rewrites its first. */
    private readonly lines: (Line | undefined)[],
    private readonly core: CoreScalars,
    private readonly asText: boolean,
  ) {}

  /** The next line with content, not consumed. */
  next(): Line | undefined {
    while (this.at < this.lines.length && !this.lines[this.at]) this.at++;
    return this.lines[this.at];
  }

  /** A map or a sequence whose lines start at `indent`. */
  block(indent: number): unknown {
    const first = this.next();
    if (!first) throw NOT_LITE;
    return isItem(first.text.slice(indent)) ? this.sequence(indent) : this.map(indent);
  }

  sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    // A line at this indent that is no item ends it (a compact sequence under a key: the next key).
    for (
      let line = this.next();
      line && line.indent === indent && isItem(line.text.slice(indent));
      line = this.next()
    ) {
      const rest = line.text.slice(indent + 1).trimStart();
      // A map under the dash: its keys line up with the first one's column.
      if (KEY.test(rest)) {
        const column = line.text.length - rest.length;
        this.lines[this.at] = { indent: column, text: " ".repeat(column) + rest };
        items.push(this.map(column));
        continue;
      }
      // A nested block under the dash, or a key the map rules would refuse: left to the parsers.
      if (rest === "" || /^[^'"]*: /.test(rest)) throw NOT_LITE;
      this.at++;
      items.push(this.scalar(rest));
    }
    this.end(indent);
    return items;
  }

  map(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (let line = this.next(); line && line.indent === indent; line = this.next()) {
      const m = KEY.exec(line.text.slice(indent));
      if (!m) throw NOT_LITE;
      const key = m[1] as string;
      const rest = m[2] ?? "";
      if (
        Object.hasOwn(map, key) ||
        key === "__proto__" ||
        this.core.NULL.test(key) ||
        this.core.BOOL.test(key)
      )
        throw NOT_LITE;
      this.at++;
      const header = BLOCK_HEADER.exec(rest);
      if (header) map[key] = this.blockScalar(indent, header[1] === ">", header[2] === "-");
      else if (rest === "" || rest.startsWith("#")) map[key] = this.nested(indent);
      else map[key] = this.scalar(rest);
    }
    this.end(indent);
    return map;
  }

  /** What follows `key:` with nothing after it: a deeper block, a sequence at the key's indent, or null. */
  nested(indent: number): unknown {
    const line = this.next();
    if (line && line.indent > indent) return this.block(line.indent);
    if (line && line.indent === indent && isItem(line.text.slice(indent))) return this.sequence(indent);
    return null;
  }

  /** The block ended: the next line must belong to an outer one (a deeper one is a continuation). */
  end(indent: number): void {
    const line = this.next();
    if (line && line.indent > indent) throw NOT_LITE;
  }

  /** `|`, `|-`, `>` or `>-` under a key at `indent`: lines without gaps, all at one deeper indent. */
  blockScalar(indent: number, folded: boolean, strip: boolean): string {
    const parts: string[] = [];
    let depth = -1;
    while (this.at < this.raw.length) {
      const raw = this.raw[this.at] as string;
      const body = raw.trimStart();
      const own = raw.length - body.length;
      if (body === "") {
        // A gap inside the scalar (or at its end before more of it) is left to the parsers.
        const after = this.raw.slice(this.at + 1).find((l) => l.trim() !== "");
        if (after !== undefined && after.length - after.trimStart().length > indent && parts.length)
          throw NOT_LITE;
        break;
      }
      if (own <= indent) break;
      if (depth === -1) depth = own;
      // More-indented lines keep their line breaks in a folded scalar: left to the parsers.
      if (own !== depth) throw NOT_LITE;
      // Trailing spaces are content in a block scalar: left to the parsers.
      if (body.trimEnd() !== body) throw NOT_LITE;
      parts.push(body);
      this.at++;
    }
    if (!parts.length) throw NOT_LITE;
    return parts.join(folded ? " " : "\n") + (strip ? "" : "\n");
  }

  scalar(source: string): unknown {
    const first = source[0];
    if (first === '"' || first === "'") return quoted(source);
    const cut = source.search(/ #/);
    const text = (cut === -1 ? source : source.slice(0, cut)).trimEnd();
    if (!PLAIN_START.test(text) || text.includes(": ") || text.endsWith(":")) throw NOT_LITE;
    const { NULL, BOOL, INT, FLOAT, intOf, floatOf } = this.core;
    if (NULL.test(text)) return null;
    if (BOOL.test(text)) return text[0] === "t" || text[0] === "T";
    if (INT.test(text)) return this.asText ? text : intOf(text);
    if (FLOAT.test(text)) return this.asText ? text : floatOf(text);
    return text;
  }
}

function isItem(body: string): boolean {
  return body === "-" || body.startsWith("- ");
}

/** A quoted scalar with nothing but an optional comment after it; no escapes, no line breaks. */
function quoted(source: string): string {
  const q = source[0] as string;
  const close = q === '"' ? source.indexOf('"', 1) : closingSingle(source);
  if (close === -1) throw NOT_LITE;
  const after = source.slice(close + 1).trim();
  if (after !== "" && !after.startsWith("#")) throw NOT_LITE;
  if (after.startsWith("#") && !/^[ ]/.test(source.slice(close + 1))) throw NOT_LITE;
  const inner = source.slice(1, close);
  if (q === '"') {
    if (inner.includes("\\")) throw NOT_LITE;
    return inner;
  }
  return inner.replaceAll("''", "'");
}

/** The index of the quote closing a single-quoted scalar (`''` is a quote inside it), or -1. */
function closingSingle(source: string): number {
  for (let i = 1; i < source.length; i++) {
    if (source[i] !== "'") continue;
    if (source[i + 1] === "'") i++;
    else return i;
  }
  return -1;
}
