// The cap on threads one instance holds at once, on a real PostgreSQL (held-cap.ts): every held
// thread is a session advisory lock in the server's shared lock table, which a burst over
// thousands of distinct threads filled ("out of shared memory": the server's other statements and
// new connections refused). Turns wait at a gate until the burst is recorded, so the threads held
// are the ones the cap let in; the rest wait with their messages queued in the inbox, and are taken
// as held threads are let go: every message answered once, in its thread's order.
import { InstanceLink } from "@agentsvc/pg-cluster";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { afterEach, describe, expect, it } from "vitest";
import { type LockWatch, postgresStore, watchedLocks } from "./pg-locks.js";
import { type Rig, rig, until } from "./session-harness.js";

const ended: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const end of ended.splice(0).reverse()) await end();
});

/** Periods of the session's sweep so far. */
const periods = (r: Rig) => r.session.scheduler.list().find((t) => t.name === "session:sweep")?.runs ?? 0;

/** One instance with at most `cap` threads held, over a new database of `server`. */
async function instance(server: TestPostgres, cap: number): Promise<{ r: Rig; watch: LockWatch }> {
  const url = await server.createDatabase();
  const store = await postgresStore(url, 2);
  ended.push(store.close);
  const watch = await watchedLocks(url);
  ended.push(watch.close);
  const r = await rig({ store: store.db, coordination: watch.coordination, maxHeldThreads: cap });
  ended.push(() => r.close());
  return { r, watch };
}

/**
 * Each thread's first message runs a turn that waits at the gate, its second queues behind it;
 * recorded thread by thread in parallel, each thread's in order.
 */
async function burst(r: Rig, threads: string[], perThread: number): Promise<void> {
  await Promise.all(
    threads.map(async (t) => {
      for (let i = 0; i < perThread; i++) {
        const text = i === 0 ? `use wait_gate ${t}` : `hello ${t} m${i}`;
        await r.gateway.inject({ thread: t, text, id: `${t}-m${i}` });
      }
    }),
  );
}

/** Every message answered once: one reply each, in the thread's order, every record finished. */
async function answeredOnce(r: Rig, threads: string[], perThread: number): Promise<void> {
  await until(
    () => threads.every((t) => r.gateway.textsTo(t).length >= perThread),
    "every message answered",
    120_000,
  );
  await r.session.idle(60_000);
  for (const t of threads) {
    const replies = r.gateway.textsTo(t);
    expect(replies, t).toHaveLength(perThread);
    for (let i = 1; i < perThread; i++) expect(replies[i], t).toContain(`hello ${t} m${i}`);
  }
  expect(r.runs.starts).toHaveLength(threads.length * perThread);
  expect(await r.db.inbox.unfinished()).toEqual([]);
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);

describe.skipIf(postgresMissing)("an instance on PostgreSQL with a cap on the threads it holds", () => {
  it("holds at most 5 threads' locks while 50 threads have messages; the rest stay queued and are answered once each", async () => {
    const server = await startPostgres();
    ended.push(() => server.stop());
    const { r, watch } = await instance(server, 5);
    const threads = names(50);
    await burst(r, threads, 2);
    await until(() => r.gates.calls.length >= 5, "five turns at their gates");
    // A few sweeps later, nothing more was taken: the other 45 threads' messages wait in the inbox.
    const from = periods(r);
    await until(() => periods(r) >= from + 3, "three sweep periods");
    expect(r.gates.calls).toHaveLength(5);
    const unfinished = await r.db.inbox.unfinished();
    expect(unfinished).toHaveLength(100);
    expect(unfinished.filter((rec) => rec.status === "queued")).toHaveLength(95);
    expect(watch.peak()).toBe(5);
    r.gates.openAll();
    await answeredOnce(r, threads, 2);
    expect(watch.peak()).toBe(5);
    expect(watch.seenPeak()).toBeGreaterThan(0);
    expect(watch.seenPeak()).toBeLessThanOrEqual(5);
    expect(watch.refused).toEqual([]);
  }, 180_000);

  it("answers a burst over more threads than a small lock table holds, without running it out", async () => {
    // A lock table of 10 per transaction for 8 connections: a few hundred advisory locks fit (the
    // table borrows spare shared memory, so how many is measured). The burst is 50 threads more.
    const server = await startPostgres({
      maxConnections: 8,
      settings: ["max_locks_per_transaction = 10", "max_worker_processes = 0", "max_wal_senders = 0"],
    });
    ended.push(() => server.stop());
    const threads = names((await lockTableHolds(await server.createDatabase())) + 50);
    const { r, watch } = await instance(server, 20);
    await burst(r, threads, 1);
    await until(() => r.gates.calls.length >= 20, "twenty turns at their gates");
    const from = periods(r);
    await until(() => periods(r) >= from + 3, "three sweep periods");
    expect(watch.refused).toEqual([]);
    expect(r.gates.calls).toHaveLength(20);
    r.gates.openAll();
    await answeredOnce(r, threads, 1);
    expect(watch.peak()).toBe(20);
    expect(watch.seenPeak()).toBeLessThanOrEqual(20);
    expect(watch.refused).toEqual([]);
    expect(r.logs.lines().filter((l) => l.level >= 50)).toEqual([]);
  }, 180_000);
});

/** How many advisory locks one session can take on the database's server before its lock table is full. */
async function lockTableHolds(url: string): Promise<number> {
  const link = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
  await link.connect();
  let n = 0;
  try {
    for (;;) {
      try {
        await link.query("SELECT pg_try_advisory_lock(7, $1::int)", [n]);
      } catch (err) {
        if (/out of shared memory/.test((err as Error).message)) return n;
        throw err;
      }
      n += 1;
    }
  } finally {
    await link.close();
  }
}
