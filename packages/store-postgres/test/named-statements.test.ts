// The pool's parameterized statements are named: prepared once per connection, then only bound
// and executed (named-statements.ts). Checked on the server (pg_prepared_statements lists a
// session's prepared statements) and on the wire (a second run sends no Parse).
import { postgresMissing } from "@agentsvc/pg-test";
import { eq } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { namingClient } from "../src/named-statements.js";
import { connect, usePostgres } from "./helpers.js";

describe.skipIf(postgresMissing)("[postgres] named statements", () => {
  const server = usePostgres();

  it("a store query is prepared once on its connection and answers every run with its own values", async () => {
    const store = await connect({ connectionString: await server.server().createDatabase(), max: 1 });
    const { inbox } = store.tables;
    const row = (key: string) => ({
      gateway: "g",
      dedupKey: key,
      thread: "t",
      text: `text of ${key}`,
      origin: "{}",
      status: "queued" as const,
      receivedAt: 1,
    });
    await store.db.insert(inbox).values(row("a"));
    await store.db.insert(inbox).values(row("b"));
    const read = (key: string) =>
      store.db.select({ text: inbox.text }).from(inbox).where(eq(inbox.dedupKey, key));
    expect(await read("a")).toEqual([{ text: "text of a" }]);
    expect(await read("b")).toEqual([{ text: "text of b" }]);
    expect(await read("none")).toEqual([]);
    // Same connection (pool of one): each text once, whatever ran before (migrations) included.
    const { rows } = await store.pool.query<{ name: string; statement: string }>(
      "SELECT name, statement FROM pg_prepared_statements ORDER BY name",
    );
    const ofInbox = rows.filter((r) => r.statement.includes('"inbox"'));
    expect(ofInbox.map((r) => r.statement.split(" ")[0]?.toLowerCase()).sort()).toEqual(["insert", "select"]);
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
  });

  it("a named text answers a promise and a callback alike, array values and errors included", async () => {
    const url = await server.server().createDatabase();
    const Named = namingClient(pg.Client);
    const client = new Named({ connectionString: url });
    await client.connect();
    const texts = ['say "hi"', "back\\slash", null, "", "ünï"];
    const text = "SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n";
    try {
      for (let run = 0; run < 2; run++) {
        const viaPromise = await client.query(text, [texts]);
        expect(viaPromise.rows.map((r) => r.v)).toEqual(texts);
        const viaCallback = await new Promise<pg.QueryResult>((ok, fail) =>
          client.query({ text, values: [texts] }, (err: Error | undefined, res: pg.QueryResult) =>
            err ? fail(err) : ok(res),
          ),
        );
        expect(viaCallback.rows.map((r) => r.v)).toEqual(texts);
      }
      const failed = await client.query("SELECT 1 / $1::int AS v", [0]).catch((e: unknown) => e);
      expect((failed as { code?: string }).code).toBe("22012");
      expect((failed as Error).stack).toContain("named-statements.test");
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1",
        [text],
      );
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await client.end();
    }
  });

  it("sends Parse for a text once per connection, and past the limit runs new texts unnamed", async () => {
    const url = await server.server().createDatabase();
    const Named = namingClient(pg.Client, 2);
    const client = new Named({ connectionString: url });
    await client.connect();
    const parses: string[] = [];
    const connection = (client as unknown as { connection: { parse(q: { text: string }): void } }).connection;
    const parse = connection.parse.bind(connection);
    connection.parse = (q) => {
      parses.push(q.text);
      parse(q);
    };
    try {
      for (const n of [1, 2, 3]) {
        expect((await client.query("SELECT $1::int + 1 AS v", [n])).rows).toEqual([{ v: n + 1 }]);
        expect((await client.query({ text: "SELECT $1::text AS v", values: [`x${n}`] })).rows).toEqual([
          { v: `x${n}` },
        ]);
        // A third text: past the limit of two names, so unnamed (parsed on every run).
        expect((await client.query("SELECT $1::int * 2 AS v", [n])).rows).toEqual([{ v: n * 2 }]);
      }
      const count = (text: string) => parses.filter((t) => t === text).length;
      expect(count("SELECT $1::int + 1 AS v")).toBe(1);
      expect(count("SELECT $1::text AS v")).toBe(1);
      expect(count("SELECT $1::int * 2 AS v")).toBe(3);
    } finally {
      await client.end();
    }
  });
});
