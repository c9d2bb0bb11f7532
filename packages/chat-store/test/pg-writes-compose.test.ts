// withClauses (pg-writes.ts) beyond the shapes a turn's end makes today: placeholders of two digits
// in a later part, and more sequences of texts than it keeps composed. Found by a mutation run of
// pg-writes.ts (#45): `$10` moved up as `$1` then `0`, and the composition past the kept ones, went
// unnoticed.
import { describe, expect, it } from "vitest";
import { withClauses } from "../src/pg-writes.js";

describe("statements composed of WITH clauses", () => {
  it("move a later part's two-digit placeholders up whole", () => {
    const first = { text: "INSERT INTO a VALUES ($1, $2, $3)", params: [1, 2, 3] };
    const ten = Array.from({ length: 10 }, (_, i) => `$${i + 1}`).join(", ");
    const wide = { text: `INSERT INTO b VALUES (${ten})`, params: Array.from({ length: 10 }, (_, i) => i) };
    const main = { text: "SELECT $1::int AS n", params: [0] };
    const shifted = Array.from({ length: 10 }, (_, i) => `$${i + 4}`).join(", ");
    expect(withClauses([first, wide], undefined, main).text).toBe(
      `WITH carried_0 AS (INSERT INTO a VALUES ($1, $2, $3)), carried_1 AS (INSERT INTO b VALUES (${shifted})) SELECT $14::int AS n`,
    );
  });

  it("are composed right past the number of compositions kept, every time", () => {
    const main = { text: "SELECT count(*) AS n FROM ended", params: [] };
    const ended = { text: "UPDATE e SET x = $1 RETURNING id", params: ["x"] };
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 100; i++) {
        const clause = { text: `INSERT INTO t${i} VALUES ($1, $2)`, params: [i, round] };
        expect(withClauses([clause], ended, main)).toEqual({
          text: `WITH carried_0 AS (INSERT INTO t${i} VALUES ($1, $2)), ended AS (UPDATE e SET x = $3 RETURNING id) SELECT count(*) AS n FROM ended`,
          params: [i, round, "x"],
        });
      }
    }
  });
});
