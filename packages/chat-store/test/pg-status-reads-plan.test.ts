// The store's reads by status on PostgreSQL, in their generic plans (what a named statement keeps,
// store-postgres), over 20,000 finished records (finished_at set, as an end sets it) and sent pieces
// (ANALYZEd) and a few unfinished ones. inbox's index of unfinished records (by finished_at since
// store-schema step 19) and outbox_pending hold unfinished rows only (step 14):
// the planner takes a partial index only when the statement's own terms prove its predicate, so the
// statuses are written into the text (status-in.ts); bound as parameters, each of these reads
// scanned every finished row. Rows read are asserted, never a time.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { type PgClient, type Statement, statementsOf, withOwnConnection } from "./pg-statements.js";
import { type PlanNode, rowsRead } from "./plan-nodes.js";

const FINISHED = 20_000;

/** `v` as an SQL literal for EXECUTE's arguments. */
const literal = (v: unknown) =>
  typeof v === "number"
    ? String(v)
    : `'${(Array.isArray(v) ? `{${v.join(",")}}` : String(v)).replace(/'/g, "''")}'`;

/** The rows `statement` read from `relation` in its generic plan (run, then undone). */
async function genericRowsRead(client: PgClient, statement: Statement, relation: string) {
  await client.query("BEGIN");
  try {
    await client.query("SET LOCAL plan_cache_mode = force_generic_plan");
    await client.query(`PREPARE status_read AS ${statement.text}`);
    const args = statement.values.length > 0 ? `(${statement.values.map(literal).join(", ")})` : "";
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE status_read${args}`);
    const plan = (rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan;
    return { read: rowsRead(plan, relation), where: `${statement.text}\n${JSON.stringify(plan)}` };
  } finally {
    await client.query("ROLLBACK");
    await client.query("DEALLOCATE ALL");
  }
}

/** The statements on `relation` that `work` sent (BEGIN, COMMIT and others left out). */
async function readsOf(relation: string, work: () => Promise<unknown>): Promise<Statement[]> {
  const sent = await statementsOf(work);
  return sent.filter(
    (s) => /^\s*select/i.test(s.text) && new RegExp(`from "?${relation}"?`, "i").test(s.text),
  );
}

describe.skipIf(postgresMissing)("[postgres] reads by status under a history of finished rows", () => {
  it("the inbox's unfinished reads (a restart's, a thread's, its count) read only unfinished records", async () => {
    await withOwnConnection(async (db: ChatDb, client) => {
      await client.query(
        `INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at, finished_at)
         SELECT 'g', 'old' || i, 't' || (i % 10), 'x', '{}', 'done', 0, 0 FROM generate_series(1, ${FINISHED}) i`,
      );
      await client.query("ANALYZE inbox");
      /** One unfinished record on thread t1, beside the finished history. */
      const accept = (dedupKey: string) =>
        db.inbox.accept({
          gateway: "g",
          dedupKey,
          thread: "t1",
          text: "x",
          origin: { gateway: "g", thread: "t1" },
        });
      const a = await accept("a1");
      const b = await accept("a2");
      if (!a.accepted || !b.accepted) throw new Error("not accepted");
      await db.inbox.markRunning(a.id);
      const reads = await readsOf("inbox", async () => {
        expect((await db.inbox.unfinished()).map((r) => r.id)).toEqual([a.id, b.id]);
        expect(await db.inbox.countQueued("g", "t1")).toBe(1);
        // In a transaction: the drizzle-built reads (outside one, pg-writes.ts's texts, literals already).
        await db.transaction(async () => {
          expect((await db.inbox.queued("g", "t1")).map((r) => r.id)).toEqual([b.id]);
          expect((await db.inbox.unfinishedOf("g", "t1")).map((r) => r.id)).toEqual([a.id, b.id]);
        });
      });
      expect(reads).toHaveLength(4);
      for (const read of reads) {
        const { read: n, where } = await genericRowsRead(client, read, "inbox");
        expect(n, where).toBeLessThanOrEqual(2);
      }
    });
  }, 60_000);

  it("the outbox's reads of pending and dead pieces (gauges, the operator's list) read only those", async () => {
    await withOwnConnection(async (db: ChatDb, client) => {
      await client.query(
        `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at, finished_at)
         SELECT 'g', 's' || (i % 10), 's' || i, 'text', '{}', 'sent', 1, 0, 0, 0 FROM generate_series(1, ${FINISHED}) i`,
      );
      await client.query(
        `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at)
         VALUES ('g', 'p', 'p1', 'text', '{}', 'pending', 0, 0, 0), ('g', 'd', 'd1', 'text', '{}', 'dead', 3, 0, 0)`,
      );
      await client.query("ANALYZE outbox");
      const reads = await readsOf("outbox", async () => {
        expect((await db.outbox.countsByGateway()).map((c) => [c.status, c.count]).sort()).toEqual([
          ["dead", 1],
          ["pending", 1],
        ]);
        expect(await db.outbox.countByStatus("pending")).toBe(1);
        expect((await db.outbox.browse()).map((r) => r.idemKey)).toEqual(["p1", "d1"]);
        expect((await db.outbox.browse({ statuses: ["dead"] })).map((r) => r.idemKey)).toEqual(["d1"]);
      });
      expect(reads).toHaveLength(4);
      for (const read of reads) {
        const { read: n, where } = await genericRowsRead(client, read, "outbox");
        expect(n, where).toBeLessThanOrEqual(2);
      }
    });
  }, 60_000);
});
