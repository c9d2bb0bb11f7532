// What scale-out costs (#45.3): one PostgreSQL, the same requests, one instance against three, in
// CPU seconds per 1,000 requests summed over every instance and PostgreSQL (/proc: waiting for a
// CPU is not counted, so a shared 2-CPU machine still shows it; wall-clock throughput it cannot),
// statements per request (pg_stat_statements, every top-level statement of the bench database,
// BEGIN and COMMIT included), and the same at rest per minute. Each configuration runs on a fresh
// database of one durable server; requests go to every instance at once (30 connections in all),
// and gateway messages share 200 threads (`steady`: 200 per instance), so a thread's next message often
// lands elsewhere.
// By default the bursts measure the steady cost per request (cluster-warm.ts: every instance warmed
// alike, the configurations alive side by side and measured in alternated rounds, so warm-up and the
// machine's load drift fall on one and three alike); BENCH_CLUSTER_PROTOCOL=issue runs #45.3's
// protocol (each configuration in turn, 2,000 requests over all after 300 per instance, twice).
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import autocannon from "autocannon";
import { type ChildServer, startChildServer } from "./child-server.ts";
import { breakdown, type Calls, callsBetween, callsOf } from "./cluster-statements.ts";
import { ingest, SECRET } from "./ingest.ts";
import { ClusterProbe } from "./cluster-probe.ts";
import { APP_PERF_FLAGS, appDiffLines, appJson, appLines, dropPerfMaps } from "./cluster-app-perf.ts";
import { HZ, PERF_DIR, type PerfTally, perfLines, perfTally, startBurstPerf } from "./cluster-perf.ts";
import { printSendWaits } from "./cluster-send-waits.ts";
import {
  COUNT_NOTIFIES,
  countNotifies,
  type NotifyTally,
  notifyLine,
  notifyTally,
} from "./cluster-notifies.ts";
import { pgClient } from "./pg-client.ts";
import { postgresCpuByKind, postgresCpuSeconds } from "./pg-cpu.ts";
import { cpuSecondsOf, machineLoad } from "./proc.ts";
import { mainThreadSecondsOf } from "./thread-cpu.ts";
import { threadSecondsOfAll, threadSplit } from "./cluster-threads.ts";
import { BURST_EACH, ROUNDS, roundOrder, STEADY, STEADY_WARM, warmToSteady } from "./cluster-warm.ts";
import { fmt, percentile, type Row } from "./stats.ts";

const REQUESTS = Number(process.env.BENCH_CLUSTER_REQUESTS ?? 2000);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
/**
 * The wait before the second idle window. With a 30 s pool idle timeout (store-postgres' default
 * before it became 10 minutes) the connections a burst opened closed inside the first window:
 * PostgreSQL ending their backends (5-14 ms of CPU each) was most of that window's cost, three
 * instances' pools closing about three times as many as one's. Each window prints how many
 * connections the instances held at its start and end, and the stop prints what ending them costs.
 */
const SECOND_WINDOW_AFTER_S = 35;
/**
 * BENCH_CLUSTER_PROTOCOL=issue: warm-up requests per instance, before the idle windows and again right before the measured burst:
 * each process compiles its hot paths (V8's JIT) and its pool opens its connections once, a cost per
 * process, not per request; 200 for all instances (67 each of three) left most of it in the
 * measured burst of three, and the gateway's burst came after the pools had closed.
 */
const WARM = Number(process.env.BENCH_CLUSTER_WARM ?? 300);
const CONNECTIONS = 30;
/**
 * BENCH_CLUSTER_EACH=<n>: n client connections to every instance (one instance n, three 3n) instead
 * of 30 over all of them: each instance then carries the same load in both configurations, where at 30
 * one instance carries three times what each of three does (its backlog groups more a statement).
 * #45.3's targets (1.2x CPU, 1.1x statements) are read at 10 each: three at 30 over all carry 10 each
 * too, so the set-ups differ only in the one instance, and at 30 its ratio measures that instance's
 * saturation (gateway replies waiting 5-9 s to be sent, 1.45 statements a message against 2.2-2.3 at
 * 10), not what a second and third instance add. The issue's own protocol, 30 over all, is the default.
 */
const EACH = process.env.BENCH_CLUSTER_EACH ? Number(process.env.BENCH_CLUSTER_EACH) : undefined;
const THREADS = 200;
/**
 * `steady`: THREADS per instance (one 200, three 600), so a thread's messages come as often and its
 * history grows as fast on one and on three. Over 200 in all, three's 12,000 warm-up messages gave
 * each thread 120 stored messages against one's 40 by the measured rounds, every prompt window read
 * its full 100 (one: 40-80), and three paid for that: the window read 0.11 -> 0.29 exec ms a message,
 * the turn end 0.37 -> 0.48 (#45.3, one run at load 43-52). A thread's next message still lands on
 * any instance.
 */
const threadsFor = (instances: number) => (STEADY ? THREADS * instances : THREADS);
/**
 * BENCH_CLUSTER_POOLS=10,6,4 (`steady`, gateway): every configuration once per pool size, each
 * instance's store pool at that size (BENCH_PG_POOL, servers/ingest-route-pg.ts), all side by side in
 * the same rounds, each printed with its size; the rows are the first size's. Unset: the project's 10.
 * Set BENCH_CLUSTER_ROUNDS to the number of configurations (6 for three sizes): roundOrder is balanced
 * over that many rounds only. The first three-instance configuration started cost 0.03-0.28 app CPU-s
 * per 1,000 more than the others in 6 of 7 runs whatever its size, but an A/A/A run (10,10,10) spread
 * 0.69-0.72 (pgpool11): read sizes against each other across runs with the order changed.
 */
const POOLS = (process.env.BENCH_CLUSTER_POOLS ?? "").split(",").filter(Boolean).map(Number);

/** `idle`: the gateway project's windows at rest only, without its measured burst. */
type Kind = "invoke" | "gateway" | "idle";
/** `BENCH_CLUSTER_KINDS=invoke` (or `gateway`, `idle`) measures only that kind: a lever's quick check. */
const KINDS = (process.env.BENCH_CLUSTER_KINDS ?? (STEADY ? "invoke,gateway,idle" : "invoke,gateway"))
  .split(",")
  .filter((k): k is Kind => k === "invoke" || k === "gateway" || k === "idle");

interface PgSample {
  /** The instances' connections to the bench database now (the probes left out). */
  connections: number;
  /** PostgreSQL's CPU seconds so far by kind of process (printed per idle window). */
  pgByKind: Map<string, number>;
  pg: number;
}

interface Sample extends PgSample {
  /** When it was read (ms epoch). */
  at: number;
  app: number;
  /** Each instance's CPU so far, and its main thread's (the rest: V8's compiler and GC threads, libuv's pool). */
  apps: number[];
  mains: number[];
  /** CPU so far by thread name, summed over the instances (cluster-threads.ts). */
  threads: Map<string, number>;
  statements: number;
  /** pg_stat_statements' total_exec_time so far, ms (statements' execution inside PostgreSQL). */
  execMs: number;
  calls: Calls;
}

export interface Cost {
  /** CPU seconds per 1,000 requests: instances and PostgreSQL. */
  app: number;
  pg: number;
  statements: number;
  /** At rest, per minute, in the IDLE_S right after the warm-up burst. */
  idleApp: number;
  idlePg: number;
  idleStatements: number;
  /** Per request, and per minute at rest (in the second idle window for gateway configurations): by statement. */
  calls: Calls;
  idleCalls: Calls;
  /** The same in the second idle window, SECOND_WINDOW_AFTER_S later (gateway configurations only). */
  restApp?: number;
  restPg?: number;
  /** `steady` (cluster-warm.ts): CPU-s per 1,000 (app + PostgreSQL) in each round, for the paired ratios. */
  rounds?: number[];
}

/** The bench's own connections: their backends and statements are left out. */
class Probe extends ClusterProbe {
  /** PostgreSQL's side alone (also once the instances exited). */
  async postgres(): Promise<PgSample> {
    const own = this.ownPids();
    const held = await this.stats.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND NOT pid = ANY($2::int[])",
      [this.dbName, own],
    );
    return {
      connections: Number(held.rows[0]?.n ?? 0),
      pgByKind: postgresCpuByKind(this.pg.dataDir, own),
      pg: postgresCpuSeconds(this.pg.dataDir, own),
    };
  }

  async sample(): Promise<Sample> {
    const { rows } = await this.stats.query(
      `SELECT coalesce(sum(s.calls), 0)::text AS n, coalesce(sum(s.total_exec_time), 0)::text AS ms FROM pg_stat_statements s
       JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 AND s.query NOT LIKE '%bench_probe%'`,
      [this.dbName],
    );
    const apps = this.servers.map((s) => cpuSecondsOf(s.pid));
    return {
      ...(await this.postgres()),
      at: Date.now(),
      app: apps.reduce((sum, s) => sum + s, 0),
      apps,
      mains: this.servers.map((s) => mainThreadSecondsOf(s.pid)),
      threads: threadSecondsOfAll(this.servers.map((s) => s.pid)),
      statements: Number(rows[0]?.n ?? 0),
      execMs: Number(rows[0]?.ms ?? 0),
      calls: await callsOf(this.stats, this.dbName),
    };
  }

  /** p50, p90 and p99 ms from a reply's commit to its send, over the replies committed since `since` (ms epoch). */
  async sendDelays(since: number): Promise<number[]> {
    const { rows } = await this.db.query(
      `SELECT percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY finished_at - created_at) AS bench_probe
         FROM outbox WHERE status = 'sent' AND created_at >= $1`,
      [since],
    );
    return ((rows[0]?.bench_probe as number[] | null) ?? []).map(Number);
  }

  /** BENCH_CLUSTER_PERF: perf and PostgreSQL's counters over one burst (cluster-perf.ts). */
  perfBurst(file: string) {
    const pids = this.servers.map((s) => s.pid);
    return startBurstPerf(this.stats, this.pg.dataDir, this.dbName, this.ownPids(), file, pids);
  }

  /** BENCH_CLUSTER_NOTIFIES: the bus channel's NOTIFYs counted into `into()` (cluster-notifies.ts). */
  countNotifies(into: () => NotifyTally | undefined): Promise<void> {
    return countNotifies(this.db, into);
  }

  /** BENCH_DEBUG: where the replies committed since `since` waited long (cluster-send-waits.ts). */
  sendWaits(since: number, title: string): Promise<void> {
    return printSendWaits(this.db, since, title);
  }
}

let tag = 0;

async function invoke(url: string, amount: number, connections: number): Promise<void> {
  const run = ++tag;
  let seq = 0;
  const result = await autocannon({
    url: `${url}/agent/invoke`,
    method: "POST",
    connections,
    amount,
    headers: { "content-type": "application/json" },
    // One conversation per request: no history grows over the run.
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ input: "hello benchmark", conversationId: `c${run}-${++seq}` }),
        }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
}

/** `total` requests spread over every instance at once. */
async function load(kind: Kind, servers: ChildServer[], total: number, probe: Probe): Promise<void> {
  const each = Math.ceil(total / servers.length);
  const connections = EACH ?? Math.max(1, Math.round(CONNECTIONS / servers.length));
  await Promise.all(
    servers.map((s) =>
      kind === "invoke"
        ? invoke(s.url, each, connections)
        : ingest(s.url, { amount: each, threads: threadsFor(servers.length), connections }),
    ),
  );
  if (kind !== "invoke") await probe.drained(500);
}

/** This tree's bench servers, or those of BENCH_BEFORE_TREE (an older commit's tree, built). */
function serverFile(tree: string | undefined, kind: Kind): string {
  const name = kind === "invoke" ? "route-pg.ts" : "ingest-route-pg.ts";
  return tree
    ? resolve(tree, "tooling/bench/src/servers", name)
    : resolve(import.meta.dirname, "servers", name);
}

/** A configuration's instances on a fresh database, and its probe (opened). */
async function startConfig(pg: TestPostgres, kind: Kind, instances: number, tree?: string, pool?: number) {
  const dbUrl = await pg.createDatabase();
  const dbName = new URL(dbUrl).pathname.slice(1);
  const file = serverFile(tree, kind);
  const env = {
    BENCH_PG_URL: dbUrl,
    BENCH_HOOKS_SECRET: SECRET,
    ...(pool ? { BENCH_PG_POOL: String(pool) } : {}),
    // BENCH_CLUSTER_PERF: perf names the instances' JS frames (cluster-app-perf.ts).
    ...(PERF_DIR
      ? { NODE_OPTIONS: [process.env.NODE_OPTIONS, APP_PERF_FLAGS].filter(Boolean).join(" ") }
      : {}),
  };
  // The first instance migrates; the others find the schema in place.
  const servers = [await startChildServer(file, env)];
  try {
    for (let i = 1; i < instances; i++) servers.push(await startChildServer(file, env));
    const probe = new Probe(pg, dbName, dbUrl, servers);
    await probe.open();
    return { servers, probe };
  } catch (e) {
    for (const s of servers) await s.stop();
    throw e;
  }
}

async function measure(pg: TestPostgres, kind: Kind, instances: number, tree?: string): Promise<Cost> {
  const { servers, probe } = await startConfig(pg, kind, instances, tree);
  try {
    try {
      await load(kind, servers, WARM * instances, probe); // not reported
      const idle0 = await probe.sample();
      await new Promise((r) => setTimeout(r, IDLE_S * 1000));
      const idle1 = await probe.sample();
      printPgKinds(
        `${tree ? "BEFORE " : ""}${kind}, ${instances}: PostgreSQL CPU-s in the first idle window`,
        idle0,
        idle1,
      );
      let rest: { restApp: number; restPg: number } | undefined;
      let idleCalls = callsBetween(idle0.calls, idle1.calls, IDLE_S / 60);
      // BENCH_DEBUG: what the first window after a burst runs, most frequent first (per minute).
      if (process.env.BENCH_DEBUG)
        for (const [q, n] of [...idleCalls].sort((a, b) => b[1] - a[1]).slice(0, 8))
          console.log(`  first idle window, ${instances}: ${n.toFixed(0)}/min ${q}`);
      if (kind !== "invoke") {
        await new Promise((r) => setTimeout(r, SECOND_WINDOW_AFTER_S * 1000));
        const rest0 = await probe.sample();
        await new Promise((r) => setTimeout(r, IDLE_S * 1000));
        const rest1 = await probe.sample();
        printPgKinds(
          `${tree ? "BEFORE " : ""}${kind}, ${instances}: PostgreSQL CPU-s in the second idle window`,
          rest0,
          rest1,
        );
        rest = {
          restApp: ((rest1.app - rest0.app) / IDLE_S) * 60,
          restPg: ((rest1.pg - rest0.pg) / IDLE_S) * 60,
        };
        idleCalls = callsBetween(rest0.calls, rest1.calls, IDLE_S / 60);
      }
      const idle = {
        idleCalls,
        ...rest,
        idleApp: ((idle1.app - idle0.app) / IDLE_S) * 60,
        idlePg: ((idle1.pg - idle0.pg) / IDLE_S) * 60,
        idleStatements: ((idle1.statements - idle0.statements) / IDLE_S) * 60,
      };
      if (kind === "idle") {
        await printStop(`${tree ? "BEFORE " : ""}${kind}, ${instances}`, probe, servers);
        return { app: 0, pg: 0, statements: 0, calls: new Map(), ...idle };
      }
      const title = `${tree ? "BEFORE " : ""}${kind}, ${instances}`;
      await load(kind, servers, WARM * instances, probe); // the pools open again: not reported
      const start = await probe.sample();
      const startedAt = Date.now();
      const sent = Math.ceil(REQUESTS / instances) * instances;
      await load(kind, servers, sent, probe);
      const done = await probe.sample();
      // The outbox sender's share of a reply's latency: from the turn's commit to the platform's answer.
      if (kind === "gateway") {
        const [p50, p90, p99] = (await probe.sendDelays(startedAt)).map((ms) => fmt(ms, 0));
        console.log(
          `${tree ? "BEFORE " : ""}${kind}, ${instances}: reply committed -> sent ms p50 ${p50}, p90 ${p90}, p99 ${p99}`,
        );
      }
      const perK = (a: number, b: number) => ((b - a) / sent) * 1000;
      // At rest: the second idle window's rate where there is one (the first still lets the warm-up's threads go).
      const restPerS = (rest?.restApp ?? idle.idleApp) / 60;
      printSplit(title, start, done, sent, restPerS);
      await printStop(title, probe, servers);
      return {
        app: perK(start.app, done.app),
        pg: perK(start.pg, done.pg),
        statements: (done.statements - start.statements) / sent,
        calls: callsBetween(start.calls, done.calls, sent),
        ...idle,
      };
    } finally {
      await probe.close();
    }
  } finally {
    for (const s of servers) await s.stop();
  }
}

/**
 * Where the burst's app CPU went (#45.3): each instance's, its main thread's against its other
 * threads' (V8's compiler and GC helpers, libuv's pool), what the instances would have spent at rest
 * over the burst's wall time (an idle window's rate: timers, sweeps, heartbeats), and
 * PostgreSQL's execution time of the statements (pg_stat_statements) beside its CPU.
 */
function printSplit(title: string, a: Sample, b: Sample, sent: number, restPerS?: number): void {
  const perK = (x: number) => fmt((x / sent) * 1000);
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const main = sum(b.mains) - sum(a.mains);
  const wallS = (b.at - a.at) / 1000;
  console.log(
    `${title}: app CPU-s per 1,000 ${perK(b.app - a.app)} = main thread ${perK(main)} + other threads ${perK(b.app - a.app - main)};` +
      ` per instance ${b.apps.map((x, i) => perK(x - (a.apps[i] ?? 0))).join(", ")};` +
      (restPerS === undefined
        ? ""
        : ` at rest over the burst's ${fmt(wallS, 1)} s ${perK(restPerS * wallS)};`) +
      ` PostgreSQL CPU ${perK(b.pg - a.pg)}, statements' execution ${fmt((b.execMs - a.execMs) / sent, 3)} ms a request`,
  );
  console.log(`${title}: app CPU-s per 1,000 by thread: ${threadSplit(a.threads, b.threads, sent)}`);
}

function printPgKinds(title: string, a: PgSample, b: PgSample): void {
  // Every kind of either reading: a kind whose processes all exited is in `a` only.
  const parts = [...new Set([...a.pgByKind.keys(), ...b.pgByKind.keys()])]
    .map((k) => [k, (b.pgByKind.get(k) ?? 0) - (a.pgByKind.get(k) ?? 0)] as const)
    .filter(([, v]) => v !== 0)
    .sort((x, y) => y[1] - x[1])
    .map(([k, v]) => `${k} ${fmt(v)}`);
  const net = fmt(b.pg - a.pg);
  console.log(
    `${title}: net ${net} (${parts.join(", ") || "none"}); connections ${a.connections} -> ${b.connections}`,
  );
}

/**
 * Stops the instances and prints PostgreSQL's CPU for it: mostly ending the connections they held,
 * a cost a pool pays whenever it lets connections go (after its idle timeout, or at a stop).
 */
async function printStop(title: string, probe: Probe, servers: ChildServer[]): Promise<void> {
  const a = await probe.postgres();
  // All at once: stopped one by one, the next would take the lead (and open connections) first.
  await Promise.all(servers.map((s) => s.stop()));
  await new Promise((r) => setTimeout(r, 1000));
  const b = await probe.postgres();
  printPgKinds(`${title}: PostgreSQL CPU-s for the instances' stop`, a, b);
}

/** Sums of burst deltas over a `steady` configuration's rounds, as one Sample (its start: ZERO). */
const ZERO: Sample = {
  connections: 0,
  pgByKind: new Map(),
  pg: 0,
  at: 0,
  app: 0,
  apps: [],
  mains: [],
  threads: new Map(),
  statements: 0,
  execMs: 0,
  calls: new Map(),
};

function addMaps(sum: Map<string, number>, a: Map<string, number>, b: Map<string, number>) {
  const out = new Map(sum);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? 0) + v - (a.get(k) ?? 0));
  return out;
}

function addDelta(sum: Sample, a: Sample, b: Sample): Sample {
  const list = (s: number[], x: number[], y: number[]) => y.map((v, i) => (s[i] ?? 0) + v - (x[i] ?? 0));
  return {
    connections: b.connections,
    pgByKind: addMaps(sum.pgByKind, a.pgByKind, b.pgByKind),
    pg: sum.pg + b.pg - a.pg,
    at: sum.at + b.at - a.at,
    app: sum.app + b.app - a.app,
    apps: list(sum.apps, a.apps, b.apps),
    mains: list(sum.mains, a.mains, b.mains),
    threads: addMaps(sum.threads, a.threads, b.threads),
    statements: sum.statements + b.statements - a.statements,
    execMs: sum.execMs + b.execMs - a.execMs,
    calls: addMaps(sum.calls, a.calls, b.calls),
  };
}

interface Running {
  key: `${Kind}-${1 | 3}`;
  tree?: string;
  /** BENCH_CLUSTER_POOLS: its instances' pool size. */
  pool?: number;
  title: string;
  servers: ChildServer[];
  probe: Probe;
  total: Sample;
  rounds: number[];
  perf: PerfTally;
  /** BENCH_CLUSTER_NOTIFIES: counted over the measured rounds only. */
  notifies?: NotifyTally;
}

/**
 * `steady` (cluster-warm.ts): every configuration of a kind (one and three instances, this tree's
 * and BENCH_BEFORE_TREE's) runs at once, each on its own database; each is warmed to its steady cost,
 * then they take turns, ROUNDS rounds of BURST_EACH requests per instance in a balanced order
 * (roundOrder: each first once, each after each other once), so the machine's load and each
 * round's wake drift through all alike: the ratio of the sums, and each round's ratio for the spread. The configurations at rest meanwhile are not counted, except their timers'
 * statements in PostgreSQL's CPU (server-wide: 0.00-0.06 CPU-s per 1,000 at rest over a burst).
 */
async function measureSteady(pg: TestPostgres, kind: Kind, trees: (string | undefined)[]): Promise<Costs[]> {
  const configs: Running[] = [];
  try {
    for (const n of [1, 3] as const)
      for (const tree of trees)
        for (const pool of POOLS.length > 0 ? POOLS : [undefined]) {
          const { servers, probe } = await startConfig(pg, kind, n, tree, pool);
          configs.push({
            key: `${kind}-${n}`,
            tree,
            pool,
            title: `${tree ? "BEFORE " : ""}${kind}, ${n}${pool ? `, pool ${pool}` : ""}`,
            servers,
            probe,
            total: ZERO,
            rounds: [],
            perf: perfTally(),
          });
        }
    for (const c of configs)
      await warmToSteady(
        c.servers,
        (each) => load(kind, c.servers, each * c.servers.length, c.probe),
        c.title,
      );
    if (COUNT_NOTIFIES)
      for (const c of configs) {
        c.notifies = notifyTally();
        await c.probe.countNotifies(() => c.notifies);
      }
    const measuredFrom = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of roundOrder(round, configs.length)) {
        const c = configs[i] as Running;
        const a = await c.probe.sample();
        const perf = PERF_DIR
          ? await c.probe.perfBurst(
              join(
                PERF_DIR,
                `${c.key}${c.tree ? "-before" : ""}${c.pool ? `-pool${c.pool}` : ""}-${round + 1}.data`,
              ),
            )
          : undefined;
        await load(kind, c.servers, BURST_EACH * c.servers.length, c.probe);
        const b = await c.probe.sample();
        await perf?.stop(BURST_EACH * c.servers.length, c.perf);
        c.total = addDelta(c.total, a, b);
        c.rounds.push(((b.app - a.app + b.pg - a.pg) / (BURST_EACH * c.servers.length)) * 1000);
      }
      console.log(
        `${kind} round ${round + 1}: CPU-s per 1,000 ${configs.map((c) => `${c.title} ${fmt(c.rounds[round] as number)}`).join(", ")} (${machineLoad()})`,
      );
    }
    // The outbox sender's share of a reply's latency over the measured rounds (a configuration's own database).
    if (kind === "gateway")
      for (const c of configs) {
        const [p50, p90, p99] = (await c.probe.sendDelays(measuredFrom)).map((ms) => fmt(ms, 0));
        console.log(`${c.title}: reply committed -> sent ms p50 ${p50}, p90 ${p90}, p99 ${p99}`);
        if (process.env.BENCH_DEBUG) await c.probe.sendWaits(measuredFrom, c.title);
      }
    for (const c of configs) {
      const sent = BURST_EACH * c.servers.length * ROUNDS;
      // Throughput: messages over the bursts' wall time (each burst ends once every reply is sent).
      console.log(
        `${c.title}: ${fmt(sent / (c.total.at / 1000), 0)} messages/s over the bursts; ${fmt(c.total.statements / sent)} statements a message; ${c.total.connections} connections to its database at the end`,
      );
      printSplit(c.title, ZERO, c.total, sent);
      if (c.notifies) console.log(notifyLine(c.title, c.notifies, sent));
      if (PERF_DIR) {
        console.log(perfLines(c.title, c.perf).join("\n"));
        console.log(appLines(c.title, c.perf.app, c.perf.messages, HZ).join("\n"));
        const name = `app-${c.key}${c.tree ? "-before" : ""}${c.pool ? `-pool${c.pool}` : ""}.json`;
        writeFileSync(join(PERF_DIR, name), appJson(c.perf.app, c.perf.messages));
      }
    }
    // BENCH_CLUSTER_PERF: the app's CPU, three against one of the same tree and pool.
    for (const three of PERF_DIR ? configs.filter((c) => c.servers.length === 3) : []) {
      const one = configs.find(
        (c) => c.servers.length === 1 && c.tree === three.tree && c.pool === three.pool,
      );
      if (!one) continue;
      const lines = appDiffLines(
        { t: one.perf.app, messages: one.perf.messages },
        { t: three.perf.app, messages: three.perf.messages },
        HZ,
      );
      console.log([`${three.title}:`, ...lines].join("\n"));
    }
    return trees.map((tree) => {
      const costs: Costs = {};
      for (const c of configs.filter((x) => x.tree === tree && x.pool === POOLS[0])) {
        const sent = BURST_EACH * c.servers.length * ROUNDS;
        costs[c.key] = {
          app: (c.total.app / sent) * 1000,
          pg: (c.total.pg / sent) * 1000,
          statements: c.total.statements / sent,
          calls: callsBetween(ZERO.calls, c.total.calls, sent),
          idleApp: 0,
          idlePg: 0,
          idleStatements: 0,
          idleCalls: new Map(),
          rounds: c.rounds,
        };
      }
      return costs;
    });
  } finally {
    for (const c of configs) {
      await c.probe.close();
      await Promise.all(c.servers.map((s) => s.stop()));
      if (PERF_DIR) dropPerfMaps(c.servers.map((s) => s.pid));
    }
  }
}

/** Per configuration; a kind BENCH_CLUSTER_KINDS leaves out has none. */
type Costs = Partial<Record<`${Kind}-${1 | 3}`, Cost>>;

/**
 * Measures every configuration on one durable server with pg_stat_statements loaded; with
 * BENCH_BEFORE_TREE, that tree's servers too, each configuration before then after in turn.
 */
export async function clusterCost(): Promise<{ after: Costs; before?: Costs }> {
  const beforeTree = process.env.BENCH_BEFORE_TREE;
  const pg = await startPostgres({
    durable: true,
    maxConnections: 200,
    settings: [
      "shared_preload_libraries = 'pg_stat_statements'",
      "pg_stat_statements.track_utility = on",
      // BENCH_CLUSTER_PERF: planning ms beside exec ms (each named statement is planned at each run).
      ...(PERF_DIR ? ["pg_stat_statements.track_planning = on"] : []),
    ],
  });
  try {
    const setup = pgClient(pg.url);
    await setup.connect();
    await setup.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await setup.end();
    const after: Costs = {};
    const before: Costs = {};
    for (const kind of KINDS) {
      if (STEADY && kind !== "idle") {
        const [now, then] = await measureSteady(pg, kind, beforeTree ? [undefined, beforeTree] : [undefined]);
        Object.assign(after, now);
        if (then) Object.assign(before, then);
        continue;
      }
      for (const n of [1, 3] as const) {
        if (beforeTree) before[`${kind}-${n}`] = await measure(pg, kind, n, beforeTree);
        after[`${kind}-${n}`] = await measure(pg, kind, n);
      }
    }
    printBreakdown(after, "");
    if (beforeTree) printBreakdown(before, "BEFORE ");
    return { after, ...(beforeTree ? { before } : {}) };
  } finally {
    await pg.stop();
  }
}

/** The configurations that measured at rest: the idle kind's, or the gateway's (not in `steady`). */
const atRest = (costs: Costs, n: 1 | 3) => costs[`idle-${n}`] ?? (STEADY ? undefined : costs[`gateway-${n}`]);

function printBreakdown(costs: Costs, label: string): void {
  const gateway = costs["gateway-1"] && costs["gateway-3"] ? [costs["gateway-1"], costs["gateway-3"]] : [];
  const rest = [atRest(costs, 1), atRest(costs, 3)];
  const invoke = costs["invoke-1"] && costs["invoke-3"] ? [costs["invoke-1"], costs["invoke-3"]] : [];
  const lines = [
    ...(gateway[0] && gateway[1]
      ? breakdown(
          `${label}statements per gateway message`,
          gateway[0].calls,
          gateway[1].calls,
          // BENCH_DEBUG: the whole ledger, every statement kind with its count per message.
          process.env.BENCH_DEBUG ? Number.POSITIVE_INFINITY : 12,
        )
      : []),
    ...(invoke[0] && invoke[1]
      ? breakdown(`${label}statements per /agent/invoke`, invoke[0].calls, invoke[1].calls, 6)
      : []),
    ...(rest[0] && rest[1]
      ? breakdown(
          `${label}statements per minute at rest (gateway project, second idle window)`,
          rest[0].idleCalls,
          rest[1].idleCalls,
        )
      : []),
  ];
  console.log(lines.join("\n"));
}

const ratio = (a: number, b: number) => `${fmt(a / b)}x`;
/** `steady`: three against one round by round, " (rounds median (min-max))". */
function roundSpread(one: Cost, three: Cost): string {
  if (!one.rounds || !three.rounds) return "";
  const xs = three.rounds.map((t, i) => t / (one.rounds?.[i] as number)).sort((a, b) => a - b);
  return ` (rounds ${fmt(percentile(xs, 50))}, ${fmt(xs[0] as number)}-${fmt(xs[xs.length - 1] as number)})`;
}
const split = (c: { app: number; pg: number }) =>
  `${fmt(c.app + c.pg)} (app ${fmt(c.app)} + pg ${fmt(c.pg)})`;

export function clusterCostRows(measured: Awaited<ReturnType<typeof clusterCost>>): Row[] {
  const rows = costRows(measured.after, "");
  const { before } = measured;
  if (!before) return rows;
  rows.push(...costRows(before, "BEFORE "));
  const total = (c: Cost) => c.app + c.pg;
  for (const [key, name] of [
    ["gateway-3", "gateway message, 3 instances"],
    ["gateway-1", "gateway message, 1 instance"],
    ["invoke-3", "/agent/invoke, 3 instances"],
    ["invoke-1", "/agent/invoke, 1 instance"],
  ] as const) {
    const now = measured.after[key];
    const then = before[key];
    if (!now || !then) continue;
    rows.push(
      {
        metric: `${name}: CPU-s per 1,000, this tree vs BENCH_BEFORE_TREE`,
        value: fmt(total(now)),
        baseline: `before ${fmt(total(then))}`,
        ratio: ratio(total(now), total(then)),
        target: "",
      },
      {
        metric: `${name}: statements per request, this tree vs BENCH_BEFORE_TREE`,
        value: fmt(now.statements),
        baseline: `before ${fmt(then.statements)}`,
        ratio: ratio(now.statements, then.statements),
        target: "",
      },
    );
  }
  const idle = (c: Cost) => c.idleApp + c.idlePg;
  const now = atRest(measured.after, 3);
  const then = atRest(before, 3);
  if (now && then)
    rows.push({
      metric: "idle CPU-s per minute, 3 instances, this tree vs BENCH_BEFORE_TREE",
      value: fmt(idle(now)),
      baseline: `before ${fmt(idle(then))}`,
      ratio: ratio(idle(now), idle(then)),
      target: "",
    });
  return rows;
}

/** The scale-out targets apply at equal load per instance (EACH, above): at 30 over all the row says so. */
const atEqualLoad = (target: string) => (EACH ? target : `${target} at BENCH_CLUSTER_EACH=10`);

/** What the measured burst was: steady cost per request (cluster-warm.ts), or the issue's protocol. */
const burstLabel = STEADY
  ? `${ROUNDS} alternated rounds of ${BURST_EACH} requests per instance after ${STEADY_WARM} each to warm up: steady cost`
  : `${REQUESTS} requests over all after ${WARM} per instance to warm up, twice`;

function costRows(costs: Costs, label: string): Row[] {
  const load = machineLoad();
  const rows: Row[] = [];
  for (const [kind, name] of [
    ["invoke", "/agent/invoke"],
    ["gateway", "signed http gateway message (end to end)"],
  ] as const) {
    const one = costs[`${kind}-1`];
    const three = costs[`${kind}-3`];
    if (!one || !three) continue;
    rows.push(
      {
        metric: `${label}${name}: CPU-s per 1,000, 3 instances (${burstLabel}; ${EACH ? `${EACH} connections to each instance; ` : ""}${load})`,
        value: split(three),
        baseline: `1 instance ${split(one)}`,
        ratio: `${ratio(three.app + three.pg, one.app + one.pg)}${roundSpread(one, three)}`,
        target: atEqualLoad("<= 1.2x"),
      },
      {
        metric: `${label}${name}: statements per request, 3 instances`,
        value: fmt(three.statements),
        baseline: `1 instance ${fmt(one.statements)}`,
        ratio: ratio(three.statements, one.statements),
        target: kind === "gateway" ? atEqualLoad("<= 1.1x") : "",
      },
    );
  }
  const one = atRest(costs, 1);
  const three = atRest(costs, 3);
  if (!one || !three) return rows;
  rows.push(
    {
      metric: `${label}idle CPU-s per minute, 3 instances (gateway project, ${IDLE_S} s)`,
      value: `${fmt(three.idleApp + three.idlePg)} (app ${fmt(three.idleApp)} + pg ${fmt(three.idlePg)})`,
      baseline: `1 instance ${fmt(one.idleApp + one.idlePg)} (app ${fmt(one.idleApp)} + pg ${fmt(one.idlePg)})`,
      ratio: ratio(three.idleApp + three.idlePg, one.idleApp + one.idlePg),
      target: "<= 1.5x",
    },
    ...(three.restApp !== undefined && one.restApp !== undefined
      ? [
          {
            metric: `${label}idle CPU-s per minute, second window, 3 instances (${SECOND_WINDOW_AFTER_S} s after the first)`,
            value: `${fmt(three.restApp + (three.restPg ?? 0))} (app ${fmt(three.restApp)} + pg ${fmt(three.restPg ?? 0)})`,
            baseline: `1 instance ${fmt(one.restApp + (one.restPg ?? 0))} (app ${fmt(one.restApp)} + pg ${fmt(one.restPg ?? 0)})`,
            ratio: ratio(three.restApp + (three.restPg ?? 0), one.restApp + (one.restPg ?? 0)),
            target: "",
          },
        ]
      : []),
    {
      metric: `${label}idle statements per minute, 3 instances`,
      value: fmt(three.idleStatements, 0),
      baseline: `1 instance ${fmt(one.idleStatements, 0)}`,
      ratio: ratio(three.idleStatements, one.idleStatements),
      target: "",
    },
  );
  return rows;
}
