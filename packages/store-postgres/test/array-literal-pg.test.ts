// The literals read back from a real PostgreSQL as the elements they were built from.
import { describe, expect, it } from "vitest";
import { arrayLiteral } from "../src/array-literal.js";
import { query, usePostgres } from "./helpers.js";

const { server } = usePostgres();

describe("array literals on PostgreSQL", () => {
  it("come back from text[] as the same strings and nulls", async () => {
    // No NUL (text cannot hold it) and no lone surrogate (not encodable as UTF-8).
    const values = [
      'say "hi"',
      "back\\slash",
      '\\"',
      "\\",
      '"',
      "{braces}",
      "a,b",
      "",
      " spaced ",
      "NULL",
      "null",
      null,
      "ünï 😀 \u2028",
      "line\nbreak\r\n\ttab\u0001\u001f",
      '{"json":"te\\"xt","path":"C:\\\\x","n":[1,2],"nl":"a\\nb"}',
    ];
    const literal = arrayLiteral(values);
    expect(literal).toBeDefined();
    const [row] = await query<{ a: (string | null)[] }>(server().url, "SELECT $1::text[] AS a", [literal]);
    expect(row!.a).toEqual(values);
  });
});
