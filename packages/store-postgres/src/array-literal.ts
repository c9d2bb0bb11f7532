// A PostgreSQL array literal of a flat array of strings, numbers, booleans and nulls, written as
// node-postgres writes one (pg/lib/utils.js arrayString): `{"a","b\"c",NULL,1}`, every element
// quoted but NULL, `\` and `"` escaped with a backslash. Strings without either are copied as they
// are (node-postgres runs two regular expressions over each).

/** The literal, or undefined when an element is anything else (left to node-postgres). */
export function arrayLiteral(values: readonly unknown[]): string | undefined {
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ",";
    const v = values[i];
    if (v === null || v === undefined) {
      out += "NULL";
      continue;
    }
    let s: string;
    if (typeof v === "string") s = v;
    else if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") s = String(v);
    else return undefined;
    out += `"${s.includes("\\") || s.includes('"') ? s.replace(/\\/g, "\\\\").replace(/"/g, '\\"') : s}"`;
  }
  return `${out}}`;
}
