// Array values the naming client writes itself must read exactly as node-postgres writes them.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { arrayLiteral } from "../src/array-literal.js";

const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils") as {
  prepareValue(value: unknown): unknown;
};

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
    ];
    for (const values of cases) expect(arrayLiteral(values)).toBe(prepareValue(values));
  });

  it("leave any other element to node-postgres", () => {
    for (const values of [[{ a: 1 }], [new Date(0)], [["nested"]], [Buffer.from("x")], ["a", Symbol("s")]])
      expect(arrayLiteral(values)).toBeUndefined();
  });
});
