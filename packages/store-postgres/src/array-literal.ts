// A PostgreSQL array literal of a flat array of strings, numbers, booleans and nulls, written as
// node-postgres writes one (pg/lib/utils.js arrayString): `{"a","b\"c",NULL,1}`, every element
// quoted but NULL, `\` and `"` escaped with a backslash (PostgreSQL docs, "Arrays", 8.15.6 Array
// Input and Output Syntax: inside a quoted element a backslash takes the next character as it is).
//
// Every element the store sends is mostly JSON, so nearly all contain `"`: one pass an element, no
// intermediate strings. JSON.stringify of a string is exactly that quoting (ECMA-262
// QuoteJSONString) as long as it holds no code unit below U+0020 and no lone surrogate, which it
// would write as `\n` or `\uXXXX` escapes (PostgreSQL reads `\n` as `n`); those strings go through
// one regular expression instead.

/** What JSON.stringify would escape other than `"` and `\`: control characters, lone surrogates. */
const JSON_ESCAPED = /[\u0000-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const QUOTE_OR_BACKSLASH = /[\\"]/g;

/**
 * The literal, or undefined when an element is anything else (left to node-postgres). Built with
 * `+=`: a rope node-postgres flattens once when it writes the parameter (parts joined once
 * measured slower).
 */
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
    out += JSON_ESCAPED.test(s) ? `"${s.replace(QUOTE_OR_BACKSLASH, "\\$&")}"` : JSON.stringify(s);
  }
  return `${out}}`;
}
