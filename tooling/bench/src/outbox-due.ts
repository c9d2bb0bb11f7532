// The outbox's "which replies are due" read under a backlog (#45.4): 10,000 pending replies (five
// a thread) beside 2,000 sent, p50 of `due(now, 32)` on a table with no statistics yet and after
// ANALYZE. chat-store's outbox-plan test checks the plan shape; this is its time. The baseline is
// the read it replaced (thread heads by DISTINCT ON over every pending row) on the same rows,
// calls alternated so both see the same load.
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
/** A helper's share (#45.3): one partition of four, its threads picked in the statement. */
const SHARE = { of: 4, parts: [1], hashed: ["http"] };

/** The due read before store step 13 (chat-store until #45.4's outbox_heads), as it was sent. */
const DISTINCT_ON_DUE = `SELECT o.* FROM (
  SELECT DISTINCT ON (gateway, thread) id, next_attempt_at AS at FROM outbox
  WHERE status = 'pending' ORDER BY gateway, thread, id
) heads JOIN outbox o ON o.id = heads.id WHERE heads.at <= $1 ORDER BY heads.id LIMIT $2`;

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
      await client.query({ name: "distinct_on_due", text: DISTINCT_ON_DUE, values: [1_000, 32] });
      const p50s = async () => {
        const ours: number[] = [];
        const before: number[] = [];
        const floor: number[] = [];
        const shared: number[] = [];
        // The share's read right after the whole one: both follow the same call (the DISTINCT ON read is heavy).
        for (let i = 0; i < CALLS; i++) {
          ours.push(...(await timeEach(1, () => db.outbox.due(1_000, 32).then(() => {}))));
          shared.push(
            ...(await timeEach(1, () => db.outbox.due(1_000, 32, undefined, SHARE).then(() => {}))),
          );
          floor.push(...(await timeEach(1, () => client.query("SELECT 1").then(() => {}))));
          before.push(
            ...(await timeEach(1, () =>
              client
                .query({ name: "distinct_on_due", text: DISTINCT_ON_DUE, values: [1_000, 32] })
                .then(() => {}),
            )),
          );
        }
        return {
          ours: percentile(ours, 50),
          before: percentile(before, 50),
          floor: percentile(floor, 50),
          shared: percentile(shared, 50),
        };
      };
      const fresh = await p50s();
      await client.query("ANALYZE outbox; ANALYZE outbox_heads");
      const analyzed = await p50s();
      const row = (label: string, m: { ours: number; before: number; floor: number }): Row => ({
        metric: `outbox due read p50 ms, ${PENDING.toLocaleString("en")} pending, ${label} (PostgreSQL; baseline: the DISTINCT ON read)`,
        value: fmt(m.ours, 3),
        baseline: fmt(m.before, 3),
        ratio: fmt(m.ours / m.before, 3),
        target: "<= 2 ms",
      });
      // A restricted sender's read (its partitions' heads only, filtered in the statement) against the whole read.
      const share = (label: string, m: { ours: number; shared: number }): Row => ({
        metric: `outbox due read p50 ms for a quarter share of the partitions, ${label}; baseline: the read of every partition`,
        value: fmt(m.shared, 3),
        baseline: fmt(m.ours, 3),
        ratio: fmt(m.shared / m.ours, 3),
        target: "<= 2 ms",
      });
      // What a round trip alone costs on this machine now: the part of the read no query shape removes.
      const floor = (label: string, m: { floor: number }): Row => ({
        metric: `round trip floor p50 ms (SELECT 1, the bench's client), ${label}`,
        value: fmt(m.floor, 3),
        baseline: "",
        ratio: "",
        target: "",
      });
      return [
        row("no statistics", fresh),
        share("no statistics", fresh),
        floor("no statistics", fresh),
        row("after ANALYZE", analyzed),
        share("after ANALYZE", analyzed),
        floor("after ANALYZE", analyzed),
        await fenceCost(url, (fence) => db.outbox.due(1_000, 32, fence).then(() => {})),
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

/** Advisory locks the fence's session holds: four outbox roles and an instance's default cap of held threads. */
const HELD_LOCKS = 1_004;

/**
 * The sender's role fence (#45.3): the same due read checking in pg_locks that one session holds
 * the four outbox roles, while that session holds 1,000 more advisory locks (threads at the default
 * cap), alternated with the read without the fence.
 */
async function fenceCost(
  url: string,
  due: (fence?: { pid: number; keys: string[] }) => Promise<void>,
): Promise<Row> {
  const holder = pgClient(url);
  await holder.connect();
  try {
    await holder.query(`SELECT pg_advisory_lock(k) FROM generate_series(1, ${HELD_LOCKS}) AS k`);
    const pid = Number((await holder.query("SELECT pg_backend_pid() AS pid")).rows[0]?.pid);
    const fence = { pid, keys: ["1001", "1002", "1003", "1004"] };
    await due(fence); // parsed and planned once before timing, as the plain read was
    const fenced: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      plain.push(...(await timeEach(1, () => due())));
      fenced.push(...(await timeEach(1, () => due(fence))));
    }
    const [f, p] = [percentile(fenced, 50), percentile(plain, 50)];
    return {
      metric: `outbox due read p50 ms with the sender's role fence (4 roles; ${HELD_LOCKS.toLocaleString("en")} advisory locks held), after ANALYZE; baseline: the read without it`,
      value: fmt(f, 3),
      baseline: fmt(p, 3),
      ratio: fmt(f / p, 3),
      target: "",
    };
  } finally {
    await holder.end();
  }
}
