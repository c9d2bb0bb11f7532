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
  // Room for 6,400 locks held at once beside the statements' (the default table holds 6,400 in all).
  const pg = await startPostgres({ durable: true, settings: ["max_locks_per_transaction = 128"] });
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
        ...(await fenceCost(url, (fence) => db.outbox.due(1_000, 32, fence).then(() => {}), 0)),
        ...(await fenceCost(
          url,
          (fence) => db.outbox.due(1_000, 32, fence).then(() => {}),
          TABLE_LOCKS - HELD_LOCKS,
        )),
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
/** A full default lock table (64 x 100 connections): the rest held by two other sessions (other instances' threads). */
const TABLE_LOCKS = 6_400;

/** What the fence read before it asked the lock manager (#45.3 fence9): every entry of the server's lock table is copied. */
const LOCKS_CHECK = `SELECT count(*)::int AS n FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
  AND l.pid = $1::int AND l.objsubid = 1 AND (l.classid::int8, l.objid::int8) IN (SELECT * FROM unnest($2::int8[], $3::int8[]))`;
/** A cheaper check to weigh against it: the link's backend is the same one still (pid and start time; no lock table read). */
const BACKEND_CHECK =
  "SELECT count(*)::int AS n FROM pg_stat_get_activity($1::int) a WHERE a.backend_start = $2::timestamptz";

/**
 * The sender's role fence (#45.3): the same due read checking in pg_locks that one session holds
 * the four outbox roles, while that session holds 1,000 more advisory locks (threads at the default
 * cap) and `others` more are held by other sessions, alternated with the read without the fence;
 * with others, also the fence's pg_locks read alone against a check of the backend's start time.
 */
async function fenceCost(
  url: string,
  due: (fence?: { pid: number; keys: string[]; incarnation: string }) => Promise<void>,
  others: number,
): Promise<Row[]> {
  const holder = pgClient(url);
  const other = [pgClient(url), pgClient(url)];
  await holder.connect();
  for (const c of other) await c.connect();
  try {
    await holder.query(`SELECT pg_advisory_lock(k) FROM generate_series(1, ${HELD_LOCKS}) AS k`);
    for (const [i, c] of other.entries()) {
      const n = Math.floor(others / other.length) + (i === 0 ? others % other.length : 0);
      const from = 1_000_000 * (i + 1);
      if (n > 0)
        await c.query(`SELECT pg_advisory_lock(k) FROM generate_series(${from}, ${from + n - 1}) AS k`);
    }
    const pid = Number((await holder.query("SELECT pg_backend_pid() AS pid")).rows[0]?.pid);
    // The session's incarnation (pg-cluster incarnation.ts): the fence asks the lock manager whether it is held.
    await holder.query("SELECT pg_advisory_lock(7, 11)");
    const incarnation = ((7n << 32n) | 11n).toString();
    const fence = { pid, keys: ["1001", "1002", "1003", "1004"], incarnation };
    await due(fence); // parsed and planned once before timing, as the plain read was
    const fenced: number[] = [];
    const plain: number[] = [];
    const locks: number[] = [];
    const backend: number[] = [];
    const probe = other[0]!;
    const started = String(
      (await probe.query("SELECT backend_start::text AS s FROM pg_stat_get_activity($1::int)", [pid])).rows[0]
        ?.s,
    );
    for (let i = 0; i < CALLS; i++) {
      plain.push(...(await timeEach(1, () => due())));
      fenced.push(...(await timeEach(1, () => due(fence))));
      if (others === 0) continue;
      locks.push(
        ...(await timeEach(1, () =>
          probe
            .query({
              name: "locks_check",
              text: LOCKS_CHECK,
              values: [pid, ["0", "0", "0", "0"], ["1001", "1002", "1003", "1004"]],
            })
            .then(() => {}),
        )),
      );
      backend.push(
        ...(await timeEach(1, () =>
          probe.query({ name: "backend_check", text: BACKEND_CHECK, values: [pid, started] }).then(() => {}),
        )),
      );
    }
    const held = (HELD_LOCKS + others).toLocaleString("en");
    const [f, p] = [percentile(fenced, 50), percentile(plain, 50)];
    const rows: Row[] = [
      {
        metric: `outbox due read p50 ms with the sender's role fence (4 roles; ${held} advisory locks held${others ? `, ${HELD_LOCKS.toLocaleString("en")} by the fence's session` : ""}), after ANALYZE; baseline: the read without it`,
        value: fmt(f, 3),
        baseline: fmt(p, 3),
        ratio: fmt(f / p, 3),
        target: "",
      },
    ];
    if (others > 0) {
      const [l, b] = [percentile(locks, 50), percentile(backend, 50)];
      rows.push({
        metric: `the fence's pg_locks count alone p50 ms (${held} locks held); baseline: a check of the link backend's start time (pg_stat_get_activity(pid))`,
        value: fmt(l, 3),
        baseline: fmt(b, 3),
        ratio: fmt(l / b, 3),
        target: "",
      });
    }
    return rows;
  } finally {
    await holder.end();
    for (const c of other) await c.end();
  }
}
