// The outbox's "which replies are due" read under a backlog (#45.4): 10,000 pending replies (five
// a thread) beside 2,000 sent, p50 of `due(now, 32)` on a table with no statistics yet and after
// ANALYZE. chat-store's outbox-plan test checks the plan shape; this is its time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresChatDb } from "@agentsvc/chat-store";
import { startPostgres } from "@agentsvc/pg-test";
import { pgClient } from "./pg-client.ts";
import { fmt, percentile, type Row, timeEach } from "./stats.ts";

const PENDING = 10_000;
const PER_THREAD = 5;
const SENT = 2_000;
const CALLS = 50;

export async function benchOutboxDue(): Promise<Row[]> {
  const pg = await startPostgres({ durable: true });
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-due-"));
  try {
    const url = await pg.createDatabase();
    const db = await openPostgresChatDb({
      name: "bench",
      datasource: { type: "postgres", urlEnvVar: "BENCH_PG_URL", pool: 2, ssl: "off" },
      appRoot: root,
      env: { BENCH_PG_URL: url },
    });
    const client = pgClient(url);
    await client.connect();
    try {
      await client.query(
        `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at, finished_at)
         SELECT 'http', 'sent-' || g, 'sent-' || g, 'text', '{}', 'sent', 1, 0, 0, 0 FROM generate_series(1, ${SENT}) AS g`,
      );
      await client.query(
        `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, created_at)
         SELECT 'http', 't-' || (g / ${PER_THREAD}), 'p-' || g, 'text', '{}', 'pending', 0, 0, 0
         FROM generate_series(0, ${PENDING - 1}) AS g`,
      );
      const p50 = async () =>
        percentile(await timeEach(CALLS, () => db.outbox.due(1_000, 32).then(() => {})), 50);
      const fresh = await p50();
      await client.query("ANALYZE outbox");
      const analyzed = await p50();
      return [
        {
          metric: `outbox due read p50 ms, ${PENDING.toLocaleString("en")} pending, no statistics (PostgreSQL)`,
          value: fmt(fresh, 3),
          baseline: "",
          ratio: "",
          target: "<= 2 ms",
        },
        {
          metric: `outbox due read p50 ms, ${PENDING.toLocaleString("en")} pending, after ANALYZE (PostgreSQL)`,
          value: fmt(analyzed, 3),
          baseline: "",
          ratio: "",
          target: "<= 2 ms",
        },
      ];
    } finally {
      await client.end();
      db.close();
      await db.closedSettled;
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
    await pg.stop();
  }
}
