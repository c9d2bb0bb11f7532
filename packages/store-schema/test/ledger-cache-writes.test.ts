// Step 16 on a store that already has a cost ledger: a real SQLite file and a real PostgreSQL
// database migrated to step 15 with a row in usage_ledger, then step 16. The row recorded before
// it reads 0 cache-write tokens (nothing the ledger knew of), and a row after it keeps its count.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POSTGRES_MIGRATIONS } from "../src/postgres-migrations.js";
import { SQLITE_MIGRATIONS } from "../src/sqlite-migrations.js";

const STEP = 16;

/** One ledger row; `cacheWrite` given only once the column exists. */
function insert(cacheWrite?: number): string {
  const columns = `at, user_id, gateway, agent, conversation_id, provider, model, kind, outcome,
    input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_nanos`;
  const values = `1, 'u1', NULL, 'bot', 'c1', 'anthropic', 'claude-sonnet-4-5', 'turn', 'ok', 2350, 10, 300, 0, 7`;
  return cacheWrite === undefined
    ? `INSERT INTO usage_ledger (${columns}) VALUES (${values})`
    : `INSERT INTO usage_ledger (${columns}, cache_write_input_tokens) VALUES (${values}, ${cacheWrite})`;
}

const READ = "SELECT cache_write_input_tokens AS n FROM usage_ledger ORDER BY id";

describe("step 16: cache_write_input_tokens on an existing ledger", () => {
  it("SQLite: a row from before reads 0, a new one keeps its count", () => {
    const db = new Database(join(mkdtempSync(join(tmpdir(), "store-schema-ledger-")), "chat.db"));
    try {
      for (const step of SQLITE_MIGRATIONS.filter((s) => s.version < STEP)) db.exec(step.sql);
      db.exec(insert());
      for (const step of SQLITE_MIGRATIONS.filter((s) => s.version >= STEP)) db.exec(step.sql);
      db.exec(insert(2000));
      expect(db.prepare(READ).all()).toEqual([{ n: 0 }, { n: 2000 }]);
    } finally {
      db.close();
    }
  });

  describe.skipIf(postgresMissing !== undefined)("PostgreSQL", () => {
    let server: TestPostgres | undefined;
    beforeAll(async () => {
      server = await startPostgres();
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it("a row from before reads 0, a new one keeps its count", async () => {
      const client = new pg.Client({ connectionString: await server!.createDatabase() });
      await client.connect();
      try {
        for (const step of POSTGRES_MIGRATIONS.filter((s) => s.version < STEP)) await client.query(step.sql);
        await client.query(insert());
        for (const step of POSTGRES_MIGRATIONS.filter((s) => s.version >= STEP)) await client.query(step.sql);
        await client.query(insert(2000));
        expect((await client.query(READ)).rows).toEqual([{ n: "0" }, { n: "2000" }]);
      } finally {
        await client.end();
      }
    });
  });
});
