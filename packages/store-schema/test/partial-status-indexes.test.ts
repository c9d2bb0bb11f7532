// PostgreSQL step 14: inbox's two status indexes hold unfinished records only, outbox_pending pending
// and dead pieces only. A status change writes a new entry in every index whose rows it stays in
// (no update of an indexed column is HOT); a record's end, a piece's sent mark, now writes none in
// them (#45.2). Sizes are asserted, a page count of the index, never a time.
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

const STATUS_INDEXES = ["inbox_thread_status", "inbox_status", "outbox_pending"] as const;

/** Pages of each status index. */
const pages = (client: pg.Client) => indexPages(client, STATUS_INDEXES);

describe.skipIf(postgresMissing !== undefined)("[postgres] step 14: partial status indexes", () => {
  const migrated = migratedDatabases();

  it("the status indexes hold unfinished records and pending or dead pieces only", async () => {
    await migrated.using(14, async (client) => {
      expect(await indexDefinitions(client, "indexname = ANY($1)", [STATUS_INDEXES])).toEqual({
        inbox_status: "btree (status, id) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text]))",
        inbox_thread_status:
          "btree (gateway, thread, status, id) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text]))",
        outbox_pending:
          "btree (status, next_attempt_at, id) WHERE (status = ANY (ARRAY['pending'::text, 'dead'::text]))",
      });
    });
  });

  it("finished records and sent pieces, inserted or reached by an update, write no entry in them", async () => {
    await migrated.using(14, async (client) => {
      const empty = await pages(client);
      await inboxAndOutboxRows(client, 20_000, "old", "done", "sent");
      // Nothing unfinished: the indexes keep their empty size (the full ones took ~100 pages each).
      expect(await pages(client)).toEqual(empty);
      await inboxAndOutboxRows(client, 5_000, "run", "running", "pending");
      const unfinished = await pages(client);
      await client.query("UPDATE inbox SET status = 'done', finished_at = 1 WHERE status = 'running'");
      await client.query("UPDATE outbox SET status = 'sent', finished_at = 1 WHERE status = 'pending'");
      // Each update wrote a new row version, none of which went into these indexes.
      expect(await pages(client)).toEqual(unfinished);
    });
  }, 60_000);

  it("a store at step 13 with records and pieces in every status upgrades, and its reads find the same rows", async () => {
    const reads = [
      "SELECT id FROM inbox WHERE status IN ('queued', 'running') ORDER BY id",
      "SELECT id FROM inbox WHERE gateway = 'g' AND thread = 'q7' AND status IN ('queued') ORDER BY id",
      "SELECT id FROM inbox WHERE gateway = 'g' AND thread = 'r7' AND status IN ('queued', 'running') ORDER BY id",
      "SELECT id FROM outbox WHERE status IN ('pending', 'dead') ORDER BY id",
      "SELECT gateway, status, count(*) FROM outbox WHERE status IN ('pending', 'dead') GROUP BY gateway, status ORDER BY status",
      "SELECT id FROM inbox WHERE status IN ('done', 'rejected', 'failed') AND received_at < 100 ORDER BY id",
    ];
    const across = await migrated.using(13, (client) => readsAcrossStep(client, 14, reads));
    // Each unfinished read (the first five) now goes by a partial index.
    for (const [i, { read, before, after, plan }] of across.entries()) {
      expect(after, read).toEqual(before);
      if (i < 5) expect(plan, read).toMatch(/inbox_thread_status|inbox_status|outbox_pending/);
    }
    expect(across[0]?.before).toHaveLength(500);
  }, 60_000);
});
