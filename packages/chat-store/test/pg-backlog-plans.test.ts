// The generic plans of a gateway message's PostgreSQL statements (pg-writes.ts) under a backlog that
// the statistics do not show: ANALYZE ran while every record was done and every reply sent, then
// 5,000 records were queued and 5,000 replies left pending. Each statement must read the rows it
// names by primary key, not the backlog: with
// `status = 'queued'` / `status = 'pending'` the planner took inbox_status or outbox_thread_pending
// (few rows by the statistics) and read every unfinished record or pending reply each call (#45.2).
// The pool runs named statements (store-postgres), so a generic plan is what a busy connection
// keeps. Rows read are asserted, never a time.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { inboxRunning, outboxSent, type PgQuery } from "../src/pg-writes.js";
import { type PgClient, withOwnConnection } from "./pg-statements.js";
import { type PlanNode, rowsRead } from "./plan-nodes.js";

const BACKLOG = 5_000;

/** `v` as an SQL literal (arrays as array literals), for EXECUTE's arguments. */
function literal(v: unknown): string {
  const quoted = (x: unknown) => `"${String(x).replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const text = Array.isArray(v)
    ? `{${v.map((x) => (x === null ? "NULL" : quoted(x))).join(",")}}`
    : String(v);
  return `'${text.replace(/'/g, "''")}'`;
}

/** `q` run once with its generic plan, undone: the rows it returned and its plan with actual rows. */
async function generic(client: PgClient, q: PgQuery) {
  await client.query("BEGIN");
  try {
    await client.query("SET LOCAL plan_cache_mode = force_generic_plan");
    await client.query(`PREPARE backlog_q AS ${q.text}`);
    const args = `(${q.params.map(literal).join(", ")})`;
    // EXPLAIN ANALYZE runs it: undone before it runs again for its rows.
    await client.query("SAVEPOINT explained");
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE backlog_q${args}`);
    await client.query("ROLLBACK TO SAVEPOINT explained");
    const plan = (rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan;
    const result = await client.query(`EXECUTE backlog_q${args}`);
    return { plan, rows: result.rows, where: `${q.text}\n${JSON.stringify(plan)}` };
  } finally {
    await client.query("ROLLBACK");
    await client.query("DEALLOCATE ALL");
  }
}

/**
 * 50,000 done records of threads old1..old50000 (ANALYZEd), then the first 5,000 queued again, and
 * thread "a" with a running record and a queued one; ids of a's records.
 */
async function inboxBacklog(client: PgClient): Promise<{ running: number; queued: number }> {
  await client.query(
    "INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at) SELECT 'g', 'old' || i, 'old' || i, 'x', '{}', 'done', 0 FROM generate_series(1, 50000) i",
  );
  await client.query("ANALYZE inbox");
  await client.query(`UPDATE inbox SET status = 'queued' WHERE id <= ${BACKLOG}`);
  const { rows } = await client.query(
    "INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at) VALUES ('g', 'a1', 'a', 'x', '{}', 'running', 0), ('g', 'a2', 'a', 'x', '{}', 'queued', 0) RETURNING id",
  );
  const [running, queued] = rows.map((r) => Number(r.id)) as [number, number];
  return { running, queued };
}

describe.skipIf(postgresMissing)("[postgres] marks under a backlog the statistics do not show", () => {
  it("the running mark reads its records by primary key, not the 5,000 queued records", async () => {
    await withOwnConnection(async (_db, client) => {
      const a = await inboxBacklog(client);
      const running = await generic(client, inboxRunning([a.queued], 1));
      expect(running.rows.map((r) => Number(r.id))).toEqual([a.queued]);
      expect(rowsRead(running.plan, "inbox"), running.where).toBeLessThanOrEqual(2);
      // A record running already is not moved again (the status check is kept).
      await client.query(`UPDATE inbox SET status = 'running' WHERE id = ${a.queued}`);
      expect((await generic(client, inboxRunning([a.queued, 7], 1))).rows.map((r) => Number(r.id))).toEqual([
        7,
      ]);
    });
  }, 60_000);

  it("the sent marks read their replies by primary key, not the 5,000 pending replies", async () => {
    await withOwnConnection(async (_db, client) => {
      await client.query(
        `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at, finished_at)
         SELECT 'g', 's' || i, 's' || i, 'text', '{}', 'sent', 1, 0, 0, 0 FROM generate_series(1, 20000) i`,
      );
      await client.query("ANALYZE outbox");
      const { rows } = await client.query(
        `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, next_attempt_at, created_at)
         SELECT 'g', 'p' || (i % 1000), 'p' || i, 'text', '{}', 'pending', 0, 0 FROM generate_series(1, ${BACKLOG}) i RETURNING id`,
      );
      const [first, second] = rows.slice(-2).map((r) => Number(r.id)) as [number, number];
      const marks = [
        { id: first, platformId: "m1" },
        { id: second, platformId: null },
        { id: 3, platformId: "sent already" },
      ];
      const sent = await generic(client, outboxSent(marks, 5));
      expect(sent.rows.map((r) => Number(r.id)).sort((x, y) => x - y)).toEqual([first, second]);
      expect(rowsRead(sent.plan, "outbox"), sent.where).toBeLessThanOrEqual(3);
    });
  }, 60_000);
});
