// PostgreSQL step 19 (#45.2): a record's running mark is a HOT update (no index entry), because
// inbox's index of unfinished records holds them by finished_at, which only the end sets; and a cost
// ledger row writes two btree entries instead of five (usage_ledger_at as BRIN, the gateway and agent
// indexes dropped). Counts, rows and plans are asserted, never a time.
import { postgresMissing } from "@agentsvc/pg-test";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { indexDefinitions, migratedDatabases, readsAcrossStep } from "./migrated-postgres.js";

/** `n` inbox records in `status` over 20 threads (`<tag>0`...), finished_at `finished` (SQL of `i`, 1..n). */
async function records(client: pg.Client, n: number, tag: string, status: string, finished: string) {
  await client.query(
    `INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at, finished_at)
     SELECT 'g', '${tag}' || i, '${tag}' || (i % 20), 'x', '{}', '${status}', i, ${finished}
     FROM generate_series(1, ${n}) i`,
  );
}

/** Running marks of `ids`, one statement each as chat-store sends them; how many were HOT. */
async function hotRunningMarks(client: pg.Client, ids: readonly number[]): Promise<number> {
  await client.query("BEGIN");
  try {
    for (const id of ids)
      await client.query("UPDATE inbox SET status = 'running', started_at = 1 WHERE id = $1", [id]);
    // This transaction's own counts, not yet reported: nothing else writes to this database.
    const { rows } = await client.query(
      "SELECT pg_stat_get_xact_tuples_hot_updated('inbox'::regclass) AS hot, pg_stat_get_xact_tuples_updated('inbox'::regclass) AS upd",
    );
    expect(Number(rows[0]?.upd)).toBe(ids.length);
    return Number(rows[0]?.hot);
  } finally {
    await client.query("COMMIT");
  }
}

describe.skipIf(postgresMissing !== undefined)(
  "[postgres] step 19: HOT running marks, a leaner cost ledger",
  () => {
    const migrated = migratedDatabases();

    it("a running mark writes no index entry (a HOT update) at step 19; at step 18 none was HOT", async () => {
      for (const [upTo, hot] of [
        [18, 0],
        [19, 10],
      ] as const) {
        const client = await migrated(upTo);
        try {
          await records(client, 10, "q", "queued", "NULL");
          const ids = (await client.query("SELECT id FROM inbox ORDER BY id")).rows.map((r) => Number(r.id));
          expect(await hotRunningMarks(client, ids), `step ${upTo}`).toBe(hot);
        } finally {
          await client.end();
        }
      }
    }, 60_000);

    it("new inbox pages keep two fifths free for a record's next versions (fillfactor 60)", async () => {
      const client = await migrated(19);
      try {
        const { rows } = await client.query("SELECT reloptions FROM pg_class WHERE relname = 'inbox'");
        expect(rows[0]?.reloptions).toEqual(["fillfactor=60"]);
      } finally {
        await client.end();
      }
    }, 60_000);

    it("a store at step 18 upgrades, and the unfinished reads as chat-store writes them find the same records by inbox_thread_open", async () => {
      const client = await migrated(18);
      try {
        await records(client, 2_000, "hold", "done", "i + 1");
        // Finished without finished_at (no store writes such a row): step 19 gives it one.
        await records(client, 50, "hbare", "failed", "NULL");
        await records(client, 300, "hq", "queued", "NULL");
        await records(client, 200, "hr", "running", "NULL");
        // Before the step as chat-store wrote them, after it with finished_at (status-in.ts unfinishedIn).
        const reads = [
          ["status IN ('queued', 'running')", "ORDER BY id"],
          ["status IN ('queued', 'running')", "AND attachments IS NULL ORDER BY id"],
          ["status IN ('queued')", "AND gateway = 'g' AND thread = 'hq7' ORDER BY id"],
          ["status IN ('queued', 'running')", "AND gateway = 'g' AND thread = 'hr3' ORDER BY id"],
          ["status = 'queued'", "AND gateway = 'g' AND thread = 'hq7' AND id < 2400 ORDER BY id"],
          [
            "status IN ('queued')",
            "AND (gateway, thread) IN (SELECT * FROM unnest('{g,g}'::text[], '{hq1,hr1}'::text[])) ORDER BY id",
          ],
        ];
        const before = [];
        for (const [status, rest] of reads)
          before.push((await client.query(`SELECT id FROM inbox WHERE ${status} ${rest}`)).rows);
        const across = await readsAcrossStep(
          client,
          19,
          reads.map(
            ([status, rest]) => `SELECT id FROM inbox WHERE ${status} AND finished_at IS NULL ${rest}`,
          ),
        );
        // readsAcrossStep adds its own store in every status (threads old*, q*, r*: 500 more unfinished
        // records) before its reads: the whole-inbox reads are compared with its reads before the step,
        // the reads of this test's threads (h*) with this test's own, as chat-store wrote them.
        for (const [i, { read, before: justBefore, after, plan }] of across.entries()) {
          expect(after, read).toEqual(justBefore);
          if (i >= 2) expect(after, read).toEqual(before[i]);
          expect(plan, read).toMatch(/inbox_thread_open/);
          expect(plan, read).not.toMatch(/Seq Scan/);
        }
        expect(before[0]).toHaveLength(500);
        expect(across[0]?.after).toHaveLength(1_000);
        expect(before[2]!.length).toBeGreaterThan(0);
        const { rows } = await client.query("SELECT count(*)::int AS n FROM inbox WHERE finished_at IS NULL");
        expect(rows[0]?.n).toBe(1_000);
      } finally {
        await client.end();
      }
    }, 60_000);

    it("the ledger's sums (service, user, gateway, agent, by group) read the same rows through an index after step 19, and a row has two btree entries", async () => {
      const client = await migrated(18);
      try {
        await client.query(
          `INSERT INTO usage_ledger (at, user_id, gateway, agent, conversation_id, provider, model, kind, outcome,
           input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_nanos)
         SELECT i, 'u' || (i % 40), CASE WHEN i % 3 = 0 THEN NULL ELSE 'gw' || (i % 3) END, 'a' || (i % 2), 'c', 'p', 'm',
           'turn', 'ok', 10, 5, 0, 0, i FROM generate_series(1, 5000) i`,
        );
        // As drizzle writes chat-store's usage-ledger.ts reads (a budget's totals and `agentsvc usage`).
        const sums =
          "SELECT count(*), coalesce(sum(input_tokens), 0), coalesce(sum(cost_nanos), 0) FROM usage_ledger";
        const reads = [
          `${sums} WHERE at >= 4000`,
          `${sums} WHERE at >= 4000 AND user_id = 'u7'`,
          `${sums} WHERE at >= 4000 AND gateway = 'gw1'`,
          `${sums} WHERE at >= 4000 AND agent = 'a1'`,
          `${sums} WHERE at >= 4000 AND user_id = 'u7' AND gateway = 'gw2' AND agent = 'a1'`,
          "SELECT coalesce(gateway, '') AS key, count(*), sum(cost_nanos) FROM usage_ledger WHERE at >= 4500 GROUP BY 1 ORDER BY 3 DESC, 1",
        ];
        for (const { read, before, after, plan } of await readsAcrossStep(client, 19, reads)) {
          expect(after, read).toEqual(before);
          expect(plan, read).toMatch(/usage_ledger_(at|user)/);
          expect(plan, read).not.toMatch(/Seq Scan/);
        }
        expect(await indexDefinitions(client, "tablename = 'usage_ledger'")).toEqual({
          usage_ledger_at: "brin (at)",
          usage_ledger_pkey: "btree (id)",
          usage_ledger_user: "btree (user_id, at)",
        });
      } finally {
        await client.end();
      }
    }, 60_000);
  },
);
