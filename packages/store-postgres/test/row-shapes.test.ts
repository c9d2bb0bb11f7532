// A named statement's rows on one connection: what node-postgres builds from the row description
// (parsers, the empty row) is built at the first execution and taken again at the next ones
// (row-shapes.ts), while every run parses its own values and a type parser set since is used.
import { createRequire } from "node:module";
import { postgresMissing } from "@agentsvc/pg-test";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { namingClient } from "../src/named-statements.js";
import { usePostgres } from "./helpers.js";

const Result = createRequire(import.meta.url)("pg/lib/result") as {
  prototype: { addFields(fields: unknown): void };
};

const text = `SELECT $1::int AS n, $2::text AS t, $3::bool AS b, $4::jsonb AS j, $5::int8 AS big,
  to_timestamp($6::double precision) AS at, NULL::int AS none`;
const values = (n: number) => [n, `text ${n}`, n % 2 === 0, JSON.stringify({ n }), String(n * 10), n];

describe.skipIf(postgresMissing)("[postgres] a named statement's rows", () => {
  const server = usePostgres();
  const clients: pg.Client[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(clients.splice(0).map((c) => c.end()));
  });
  async function client(): Promise<pg.Client> {
    const Named = namingClient(pg.Client);
    const c = new Named({ connectionString: await server.server().createDatabase() });
    await c.connect();
    clients.push(c);
    return c;
  }

  it("are described once per connection and statement: later runs build no parsers and parse their own values", async () => {
    const c = await client();
    const built = vi.spyOn(Result.prototype, "addFields");
    const rows = [];
    for (let n = 1; n <= 3; n++) {
      const { rows: r, fields } = await c.query(text, values(n));
      expect(fields.map((f) => f.name)).toEqual(["n", "t", "b", "j", "big", "at", "none"]);
      rows.push(r[0]);
    }
    expect(built).toHaveBeenCalledTimes(1);
    expect(rows).toEqual(
      [1, 2, 3].map((n) => ({
        n,
        t: `text ${n}`,
        b: n % 2 === 0,
        j: { n },
        big: String(n * 10),
        at: new Date(n * 1000),
        none: null,
      })),
    );
    // Each row its own object: one changed leaves the next run's alone.
    (rows[0] as Record<string, unknown>).none = 1;
    expect((await c.query(text, values(4))).rows[0].none).toBeNull();
  });

  it("a type parser set on the connection after the first run is used by the next", async () => {
    const c = await client();
    expect((await c.query(text, values(1))).rows[0].big).toBe("10");
    c.setTypeParser(20, (v: string) => BigInt(v));
    expect((await c.query(text, values(2))).rows[0].big).toBe(20n);
  });

  it("a promise and a callback each get every row, over several rows and runs", async () => {
    const c = await client();
    const many = "SELECT g AS n, $1::text AS t FROM generate_series(1, 3) AS g";
    for (let run = 0; run < 2; run++) {
      expect((await c.query(many, ["x"])).rows).toEqual([1, 2, 3].map((n) => ({ n, t: "x" })));
      const viaCallback = await new Promise<pg.QueryResult>((ok, fail) =>
        c.query({ text: many, values: ["y"] }, (err: Error | undefined, res: pg.QueryResult) =>
          err ? fail(err) : ok(res),
        ),
      );
      expect(viaCallback.rows).toEqual([1, 2, 3].map((n) => ({ n, t: "y" })));
    }
  });
});
