// Array values the naming client writes itself must read exactly as node-postgres writes them.
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arrayLiteral } from "../src/array-literal.js";

const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils") as {
  prepareValue(value: unknown): unknown;
};

/** Strings dense in what array literals and JSON.stringify treat specially. */
const awkward = fc.string({
  unit: fc.constantFrom(
    '"',
    "\\",
    "{",
    "}",
    ",",
    " ",
    "\n",
    "\t",
    "\u0000",
    "\u001f",
    "\u007f",
    "\u2028",
    "é",
    "😀",
    "\ud800",
    "\udc00",
    "a",
    "NULL",
  ),
});

const element = fc.oneof(
  awkward,
  fc.string({ unit: "binary" }),
  fc.json(),
  fc.constantFrom(null, undefined),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.bigInt(),
);

describe("array literals", () => {
  it("are node-postgres's own for strings, numbers, booleans and nulls", () => {
    const cases: unknown[][] = [
      [],
      ["a", "b"],
      ['say "hi"', "back\\slash", '\\"both', "", " spaced ", "{braces},commas", "NULL", "ünï😀"],
      [1, 2.5, -0, 1e21, Number.NaN, 10n],
      [true, false],
      [null, undefined, "x", 3],
      ['{"json":"text","n":[1,2]}'],
      ["line\nbreak\ttab\u0001", "lone \ud800 and \udc00 halves"],
    ];
    for (const values of cases) expect(arrayLiteral(values)).toBe(prepareValue(values));
  });

  it("are node-postgres's own for any strings, numbers, booleans and nulls", () => {
    fc.assert(
      fc.property(fc.array(element, { maxLength: 8 }), (values) => {
        expect(arrayLiteral(values)).toBe(prepareValue(values));
      }),
      { numRuns: 2000 },
    );
  });

  it("leave any other element to node-postgres", () => {
    for (const values of [[{ a: 1 }], [new Date(0)], [["nested"]], [Buffer.from("x")], ["a", Symbol("s")]])
      expect(arrayLiteral(values)).toBeUndefined();
  });
});
