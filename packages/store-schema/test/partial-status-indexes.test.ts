// PostgreSQL step 14: inbox's two status indexes hold unfinished records only, outbox_pending pending
// and dead pieces only. A status change writes a new entry in every index whose rows it stays in
// (no update of an indexed column is HOT); a record's end, a piece's sent mark, now writes none in
// them (#45.2). Sizes are asserted, a page count of the index, never a time.
import { postgresMissing } from "@agentsvc/pg-test";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { POSTGRES_MIGRATIONS } from "../src/postgres-migrations.js";
import { migratedDatabases } from "./migrated-postgres.js";

const STATUS_INDEXES = ["inbox_thread_status", "inbox_status", "outbox_pending"] as const;

const step14 = () => POSTGRES_MIGRATIONS.find((s) => s.version === 14)!;

/** Pages of each status index. */
async function pages(client: pg.Client): Promise<Record<string, number>> {
  const { rows } = await client.query<{ name: string; pages: string }>(
    `SELECT relname AS name, pg_relation_size(oid) / current_setting('block_size')::int AS pages
     FROM pg_class WHERE relname = ANY($1)`,
    [STATUS_INDEXES],
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.pages)]));
}

/** `n` inbox records of thread `thread` in `status`, and as many outbox pieces in `piece`. */
async function rows(client: pg.Client, n: number, tag: string, status: string, piece: string): Promise<void> {
  await client.query(
    `INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at)
     SELECT 'g', '${tag}' || i, '${tag}' || (i % 50), 'x', '{}', '${status}', i FROM generate_series(1, ${n}) i`,
  );
  await client.query(
    `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, next_attempt_at, created_at)
     SELECT 'g', '${tag}' || (i % 50), '${tag}' || i, 'text', '{}', '${piece}', i, i FROM generate_series(1, ${n}) i`,
  );
}

describe.skipIf(postgresMissing !== undefined)("[postgres] step 14: partial status indexes", () => {
  const migrated = migratedDatabases();

  it("the status indexes hold unfinished records and pending or dead pieces only", async () => {
    const client = await migrated(14);
    try {
      const { rows: defs } = await client.query<{ indexname: string; indexdef: string }>(
        "SELECT indexname, indexdef FROM pg_indexes WHERE indexname = ANY($1) ORDER BY indexname",
        [STATUS_INDEXES],
      );
      expect(
        Object.fromEntries(defs.map((d) => [d.indexname, d.indexdef.replace(/^.* USING /, "")])),
      ).toEqual({
        inbox_status: "btree (status, id) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text]))",
        inbox_thread_status:
          "btree (gateway, thread, status, id) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text]))",
        outbox_pending:
          "btree (status, next_attempt_at, id) WHERE (status = ANY (ARRAY['pending'::text, 'dead'::text]))",
      });
    } finally {
      await client.end();
    }
  });

  it("finished records and sent pieces, inserted or reached by an update, write no entry in them", async () => {
    const client = await migrated(14);
    try {
      const empty = await pages(client);
      await rows(client, 20_000, "old", "done", "sent");
      // Nothing unfinished: the indexes keep their empty size (the full ones took ~100 pages each).
      expect(await pages(client)).toEqual(empty);
      await rows(client, 5_000, "run", "running", "pending");
      const unfinished = await pages(client);
      await client.query("UPDATE inbox SET status = 'done', finished_at = 1 WHERE status = 'running'");
      await client.query("UPDATE outbox SET status = 'sent', finished_at = 1 WHERE status = 'pending'");
      // Each update wrote a new row version, none of which went into these indexes.
      expect(await pages(client)).toEqual(unfinished);
    } finally {
      await client.end();
    }
  }, 60_000);

  it("a store at step 13 with records and pieces in every status upgrades, and its reads find the same rows", async () => {
    const client = await migrated(13);
    try {
      await rows(client, 2_000, "old", "done", "sent");
      await rows(client, 300, "q", "queued", "pending");
      await rows(client, 200, "r", "running", "dead");
      const reads = [
        "SELECT id FROM inbox WHERE status IN ('queued', 'running') ORDER BY id",
        "SELECT id FROM inbox WHERE gateway = 'g' AND thread = 'q7' AND status IN ('queued') ORDER BY id",
        "SELECT id FROM inbox WHERE gateway = 'g' AND thread = 'r7' AND status IN ('queued', 'running') ORDER BY id",
        "SELECT id FROM outbox WHERE status IN ('pending', 'dead') ORDER BY id",
        "SELECT gateway, status, count(*) FROM outbox WHERE status IN ('pending', 'dead') GROUP BY gateway, status ORDER BY status",
        "SELECT id FROM inbox WHERE status IN ('done', 'rejected', 'failed') AND received_at < 100 ORDER BY id",
      ];
      const before = [];
      for (const read of reads) before.push((await client.query(read)).rows);
      await client.query(step14().sql);
      // Each unfinished read now goes by a partial index (the planner would rather seq-scan tables this small).
      await client.query("SET enable_seqscan = off");
      for (const [i, read] of reads.entries()) {
        expect((await client.query(read)).rows, read).toEqual(before[i]);
        const plan = (await client.query(`EXPLAIN ${read}`)).rows.map((r) => r["QUERY PLAN"]).join("\n");
        if (i < 5) expect(plan, read).toMatch(/inbox_thread_status|inbox_status|outbox_pending/);
      }
      expect(before[0]).toHaveLength(500);
    } finally {
      await client.end();
    }
  }, 60_000);
});
