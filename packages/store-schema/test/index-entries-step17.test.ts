// PostgreSQL step 17: fewer index entries a message (#45.2). inbox_status is gone (the reads by
// status alone walk inbox_thread_status, which holds the same unfinished records) and outbox_pending
// holds dead pieces only (pending ones are read through outbox_thread_pending): an accept and a
// running mark write one entry less each, an enqueue one less. Sizes and plans are asserted, never
// a time.
import { postgresMissing } from "@agentsvc/pg-test";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { POSTGRES_MIGRATIONS } from "../src/postgres-migrations.js";
import { migratedDatabases } from "./migrated-postgres.js";

const step17 = () => POSTGRES_MIGRATIONS.find((s) => s.version === 17)!;

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

const pagesOf = async (client: pg.Client, index: string) =>
  Number(
    (
      await client.query<{ pages: string }>(
        "SELECT pg_relation_size($1::regclass) / current_setting('block_size')::int AS pages",
        [index],
      )
    ).rows[0]?.pages,
  );

describe.skipIf(postgresMissing !== undefined)("[postgres] step 17: fewer index entries a message", () => {
  const migrated = migratedDatabases();

  it("inbox has no inbox_status, and outbox_pending holds dead pieces only", async () => {
    const client = await migrated(17);
    try {
      const { rows: defs } = await client.query<{ indexname: string; indexdef: string }>(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('inbox', 'outbox') ORDER BY indexname",
      );
      const byName = Object.fromEntries(defs.map((d) => [d.indexname, d.indexdef.replace(/^.* USING /, "")]));
      expect(byName.inbox_status).toBeUndefined();
      expect(byName.outbox_pending).toBe("btree (status, next_attempt_at, id) WHERE (status = 'dead'::text)");
      await rows(client, 5_000, "p", "queued", "pending");
      // Pending pieces, inserted and then sent, wrote no entry in it: it keeps its empty size.
      const empty = await pagesOf(client, "outbox_pending");
      await client.query("UPDATE outbox SET status = 'sent', finished_at = 1 WHERE status = 'pending'");
      expect(await pagesOf(client, "outbox_pending")).toBe(empty);
      await client.query("UPDATE outbox SET status = 'dead', finished_at = 1 WHERE id <= 2000");
      expect(await pagesOf(client, "outbox_pending")).toBeGreaterThan(empty);
    } finally {
      await client.end();
    }
  }, 60_000);

  it("a store at step 16 with records and pieces in every status upgrades, and its reads by status find the same rows by a partial index", async () => {
    const client = await migrated(16);
    try {
      await rows(client, 2_000, "old", "done", "sent");
      await rows(client, 300, "q", "queued", "pending");
      await rows(client, 200, "r", "running", "dead");
      // As chat-store writes them (status-in.ts): pending and dead as an OR, each arm one index's predicate.
      const reads = [
        "SELECT id FROM inbox WHERE status IN ('queued', 'running') ORDER BY id",
        "SELECT id FROM inbox WHERE status IN ('queued', 'running') AND attachments IS NOT NULL",
        "SELECT id FROM outbox WHERE (status = 'pending' OR status = 'dead') ORDER BY id",
        "SELECT gateway, status, count(*) FROM outbox WHERE (status = 'pending' OR status = 'dead') GROUP BY gateway, status ORDER BY status",
        "SELECT count(*) FROM outbox WHERE status IN ('pending')",
        "SELECT id FROM outbox WHERE status IN ('dead') ORDER BY id",
      ];
      const before = [];
      for (const read of reads) before.push((await client.query(read)).rows);
      await client.query(step17().sql);
      // The planner would rather seq-scan tables this small: a plan that can read by index must.
      await client.query("SET enable_seqscan = off");
      for (const read of reads) {
        expect((await client.query(read)).rows, read).toEqual(before[reads.indexOf(read)]);
        const plan = (await client.query(`EXPLAIN ${read}`)).rows.map((r) => r["QUERY PLAN"]).join("\n");
        expect(plan, read).not.toMatch(/Seq Scan/);
      }
      expect(before[0]).toHaveLength(500);
      expect(before[2]).toHaveLength(500);
    } finally {
      await client.end();
    }
  }, 60_000);
});
