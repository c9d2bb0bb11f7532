// PostgreSQL step 17: fewer index entries a message (#45.2). inbox_status is gone (the reads by
// status alone walk inbox_thread_status, which holds the same unfinished records) and outbox_pending
// holds dead pieces only (pending ones are read through outbox_thread_pending): an accept and a
// running mark write one entry less each, an enqueue one less. Sizes and plans are asserted, never
// a time.
import { postgresMissing } from "@agentsvc/pg-test";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import {
  indexDefinitions,
  indexPages,
  inboxAndOutboxRows,
  migratedDatabases,
  readsAcrossStep,
} from "./migrated-postgres.js";

/** outbox_pending's size in pages. */
async function pendingPages(client: pg.Client): Promise<number> {
  const pages = (await indexPages(client, ["outbox_pending"])).outbox_pending;
  if (pages === undefined) throw new Error("no index outbox_pending");
  return pages;
}

describe.skipIf(postgresMissing !== undefined)("[postgres] step 17: fewer index entries a message", () => {
  const migrated = migratedDatabases();

  it("inbox has no inbox_status, and outbox_pending holds dead pieces only", async () => {
    await migrated.using(17, async (client) => {
      const byName = await indexDefinitions(client, "tablename IN ('inbox', 'outbox')");
      expect(byName.inbox_status).toBeUndefined();
      expect(byName.outbox_pending).toBe("btree (status, next_attempt_at, id) WHERE (status = 'dead'::text)");
      await inboxAndOutboxRows(client, 5_000, "p", "queued", "pending");
      // Pending pieces, inserted and then sent, wrote no entry in it: it keeps its empty size.
      const empty = await pendingPages(client);
      await client.query("UPDATE outbox SET status = 'sent', finished_at = 1 WHERE status = 'pending'");
      expect(await pendingPages(client)).toBe(empty);
      await client.query("UPDATE outbox SET status = 'dead', finished_at = 1 WHERE id <= 2000");
      expect(await pendingPages(client)).toBeGreaterThan(empty);
    });
  }, 60_000);

  it("a store at step 16 with records and pieces in every status upgrades, and its reads by status find the same rows by a partial index", async () => {
    // As chat-store writes them (status-in.ts): pending and dead as an OR, each arm one index's predicate.
    const reads = [
      "SELECT id FROM inbox WHERE status IN ('queued', 'running') ORDER BY id",
      "SELECT id FROM inbox WHERE status IN ('queued', 'running') AND attachments IS NOT NULL",
      "SELECT id FROM outbox WHERE (status = 'pending' OR status = 'dead') ORDER BY id",
      "SELECT gateway, status, count(*) FROM outbox WHERE (status = 'pending' OR status = 'dead') GROUP BY gateway, status ORDER BY status",
      "SELECT count(*) FROM outbox WHERE status IN ('pending')",
      "SELECT id FROM outbox WHERE status IN ('dead') ORDER BY id",
    ];
    const across = await migrated.using(16, (client) => readsAcrossStep(client, 17, reads));
    for (const { read, before, after, plan } of across) {
      expect(after, read).toEqual(before);
      expect(plan, read).not.toMatch(/Seq Scan/);
    }
    expect(across[0]?.before).toHaveLength(500);
    expect(across[2]?.before).toHaveLength(500);
  }, 60_000);
});
