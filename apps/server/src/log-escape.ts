// Log forging: a value a caller chose (a path, a header, a name) may hold a newline or a terminal
// escape; printed raw on a pretty log it would start a second, real-looking line or recolour the
// terminal. JSON lines already escape them (JSON.stringify); the pretty printer parses them back.

const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** C0 and C1 control characters (and DEL) as visible escapes: `\n`, `\r`, `\t`, `\u001b`. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Every string in a parsed log line escaped, at any depth. A `stack` keeps its line breaks (it is
 * printed at debug and trace only, for a person reading a trace), other controls in it are escaped.
 */
export function escapeLogValues(value: unknown, key = ""): unknown {
  if (typeof value === "string") {
    if (key !== "stack") return escapeControls(value);
    return value
      .split("\n")
      .map((line) => escapeControls(line))
      .join("\n");
  }
  if (Array.isArray(value)) return value.map((v) => escapeLogValues(v));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[escapeControls(k)] = escapeLogValues(v, k);
    return out;
  }
  return value;
}
