// `pnpm bench cluster-idle`: three instances at rest against one (#45.3), in a figure a shared
// 2-CPU machine can resolve. At rest the instances and PostgreSQL use tenths of a CPU-second a
// minute, a few 10 ms clock ticks in a 30 s window, so one window's ratio swung 0.5-3x between runs
// (cluster-cost.ts's idle rows). Here each configuration runs ROUNDS bursts, each followed by the
// same two windows at fixed offsets (the first right after the burst is answered, the second once
// its threads are let go); each window's CPU is read from /proc (schedstat.ts: nanoseconds, where
// /proc/<pid>/stat counts 10 ms ticks, a few in an idle window), and the ratio is that of the CPU
// summed over every round, each round's ratio printed for the spread. PostgreSQL's CPU counted is
// its backends serving the instances (pg_stat_activity's pids of the configuration's own database,
// read from /proc): the server's checkpointer, WAL writer and autovacuum work for the whole server
// and land in one window or another whatever the configuration (0.00-0.15 CPU-s a window), so they
// are printed apart, not in the ratio.
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { startChildServer } from "./child-server.ts";
import { gcLogEnv, gcsBetween, majorGcs } from "./cluster-gc.ts";
import { breakdown, type Calls, callsBetween, callsOf } from "./cluster-statements.ts";
import { ingest, SECRET } from "./ingest.ts";
import { ClusterProbe } from "./cluster-probe.ts";
import { pgClient } from "./pg-client.ts";
import { postgresCpuSeconds } from "./pg-cpu.ts";
import { machineLoad } from "./proc.ts";
import { cpuSecondsExact } from "./schedstat.ts";
import { fmt, type Row } from "./stats.ts";

const ROUNDS = Number(process.env.BENCH_IDLE_ROUNDS ?? 3);
const WINDOW_S = Number(process.env.BENCH_IDLE_S ?? 30);
/** Between the first window's end and the second's start: the burst's threads are let go by then. */
const GAP_S = 30;
/** Gateway messages per instance in each burst (as cluster-cost.ts's warm-up), over 200 threads. */
const BURST = 300;
const THREADS = 200;
const CONNECTIONS = 30;

interface Reading {
  /** Each instance's CPU seconds so far. */
  apps: number[];
  /** CPU seconds so far of each backend connected to the configuration's database (the probes' left out). */
  backends: Map<number, number>;
  /** The whole server's CPU seconds so far (background processes included; the probes' left out). */
  server: number;
  statements: number;
  calls: Calls;
  /** When it was read (ms epoch): the GCs in a window are those that started between two readings. */
  at: number;
}

/** One window of one round: CPU seconds and statements in it. */
interface Window {
  apps: number[];
  /** The instances' backends. */
  pg: number;
  /** The rest of the server: its background processes, and backends that ended in the window. */
  background: number;
  statements: number;
  calls: Calls;
  /** The instances' memory-reducer GCs that started in it (cluster-gc.ts). */
  reducers: number;
}

interface Measured {
  first: Window[];
  second: Window[];
}

const WINDOWS = ["first", "second"] as const;

class Probe extends ClusterProbe {
  async read(): Promise<Reading> {
    const own = this.ownPids();
    const { rows } = await this.stats.query(
      `SELECT coalesce(sum(s.calls), 0)::text AS n FROM pg_stat_statements s
       JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 AND s.query NOT LIKE '%bench_probe%'`,
      [this.dbName],
    );
    const pids = await this.stats.query(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> ALL($2::int[])",
      [this.dbName, own],
    );
    const backends = new Map<number, number>();
    for (const row of pids.rows) {
      const pid = Number(row.pid);
      const seconds = cpuSecondsExact(pid);
      if (seconds !== undefined) backends.set(pid, seconds);
    }
    return {
      apps: this.servers.map((s) => cpuSecondsExact(s.pid) ?? Number.NaN),
      backends,
      server: postgresCpuSeconds(this.pg.dataDir, own),
      statements: Number(rows[0]?.n ?? 0),
      calls: await callsOf(this.stats, this.dbName),
      at: Date.now(),
    };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function between(a: Reading, b: Reading, reducers: number): Window {
  // A backend connected in the window counts whole (it began in it); one that ended in it is lost
  // to this count and falls in `background` (the instances' pools keep their connections at rest).
  let pg = 0;
  for (const [pid, seconds] of b.backends) pg += seconds - (a.backends.get(pid) ?? 0);
  return {
    apps: b.apps.map((x, i) => x - (a.apps[i] ?? 0)),
    pg,
    background: Math.max(0, b.server - a.server - pg),
    statements: b.statements - a.statements,
    calls: callsBetween(a.calls, b.calls, 1),
    reducers,
  };
}

async function measure(pg: TestPostgres, instances: number, tree?: string): Promise<Measured> {
  const dbUrl = await pg.createDatabase();
  const dbName = new URL(dbUrl).pathname.slice(1);
  const file = tree
    ? resolve(tree, "tooling/bench/src/servers/ingest-route-pg.ts")
    : resolve(import.meta.dirname, "servers/ingest-route-pg.ts");
  // Each instance logs its major GCs (cluster-gc.ts): which window V8's memory reducer fell in.
  const gcLog = join(
    tmpdir(),
    `agentsvc-bench-gc-${process.pid}-${tree ? "before" : "now"}-${instances}.jsonl`,
  );
  const env = { BENCH_PG_URL: dbUrl, BENCH_HOOKS_SECRET: SECRET, ...gcLogEnv(gcLog) };
  // The first instance migrates; the others find the schema in place.
  const servers = [await startChildServer(file, env)];
  const measured: Measured = { first: [], second: [] };
  try {
    for (let i = 1; i < instances; i++) servers.push(await startChildServer(file, env));
    const probe = new Probe(pg, dbName, dbUrl, servers);
    await probe.open();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const connections = Math.max(1, Math.round(CONNECTIONS / instances));
        await Promise.all(
          servers.map((s) => ingest(s.url, { amount: BURST, threads: THREADS, connections })),
        );
        await probe.drained();
        // A fixed settle: the windows start at the same offset after the last reply in every round.
        await sleep(500);
        const a = await probe.read();
        await sleep(WINDOW_S * 1000);
        const b = await probe.read();
        await sleep(GAP_S * 1000);
        const c = await probe.read();
        await sleep(WINDOW_S * 1000);
        const d = await probe.read();
        const gcs = majorGcs(gcLog);
        const [gcFirst, gcSecond] = [gcsBetween(gcs, a.at, b.at), gcsBetween(gcs, c.at, d.at)];
        const [first, second] = [between(a, b, gcFirst.reducers), between(c, d, gcSecond.reducers)];
        measured.first.push(first);
        measured.second.push(second);
        const label = `${tree ? "BEFORE " : ""}${instances}, round ${round + 1}`;
        for (const [name, w, gc] of [
          ["first", first, gcFirst],
          ["second", second, gcSecond],
        ] as const)
          console.log(
            `${label}, ${name} window: app ${w.apps.map((x) => fmt(x, 3)).join(" + ")} + pg backends ${fmt(w.pg, 3)} CPU-s (server background ${fmt(w.background)}, not counted), ${w.statements} statements, ${gc.line} (${machineLoad()})`,
          );
      }
    } finally {
      await probe.close();
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(gcLog, { force: true });
  }
  return measured;
}

const cpu = (w: Window) => w.apps.reduce((s, x) => s + x, 0) + w.pg;
const perMinute = (total: number, windows: number) => (total / (windows * WINDOW_S)) * 60;
const sum = (ws: Window[], f: (w: Window) => number) => ws.reduce((s, w) => s + f(w), 0);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Statements a minute by kind over every round of a window. */
function ledger(ws: Window[]): Calls {
  const out: Calls = new Map();
  for (const w of ws) for (const [q, n] of w.calls) out.set(q, (out.get(q) ?? 0) + n);
  for (const [q, n] of out) out.set(q, perMinute(n, ws.length));
  return out;
}

/** "median (min-max)" of the rounds' CPU-s a minute. */
function spread(ws: Window[]): string {
  const xs = ws.map((w) => perMinute(cpu(w), 1));
  return `${fmt(median(xs))} (${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})`;
}

/**
 * Round i's three/one CPU ratio over the rounds: "median, min-max". The median is the figure at
 * rest: each process's memory-reducer GC after a burst (cluster-gc.ts: 13-96 s after it, on either
 * tree, one instance or three) lands in one window or another and sets that window's sum; the rows
 * count those that fell in the window.
 */
function ratioSpread(one: Window[], three: Window[]): string {
  const xs = three.map((w, i) => cpu(w) / cpu(one[i] as Window)).filter(Number.isFinite);
  return xs.length ? `median ${fmt(median(xs))}x, ${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}x` : "n/a";
}

function rows(one: Measured, three: Measured, label: string): Row[] {
  const out: Row[] = [];
  for (const name of WINDOWS) {
    const [a, b] = [one[name], three[name]];
    const [ca, cb] = [sum(a, cpu), sum(b, cpu)];
    out.push(
      {
        metric: `${label}idle CPU-s a minute (instances + their PostgreSQL backends), ${name} window after a burst, 3 instances (summed over ${ROUNDS} rounds of ${WINDOW_S} s; per round median (min-max); ratio by round median, min-max; ${machineLoad()})`,
        value: `${fmt(perMinute(cb, b.length))}; ${spread(b)}; server background ${fmt(
          perMinute(
            sum(b, (w) => w.background),
            b.length,
          ),
        )}; memory-reducer GCs ${sum(b, (w) => w.reducers)}`,
        baseline: `1 instance ${fmt(perMinute(ca, a.length))}; ${spread(a)}; server background ${fmt(
          perMinute(
            sum(a, (w) => w.background),
            a.length,
          ),
        )}; memory-reducer GCs ${sum(a, (w) => w.reducers)}`,
        ratio: `${fmt(cb / ca)}x (${ratioSpread(a, b)})`,
        target: "<= 1.5x",
      },
      {
        metric: `${label}idle statements a minute, ${name} window, 3 instances`,
        value: fmt(
          perMinute(
            sum(b, (w) => w.statements),
            b.length,
          ),
          1,
        ),
        baseline: `1 instance ${fmt(
          perMinute(
            sum(a, (w) => w.statements),
            a.length,
          ),
          1,
        )}`,
        ratio: `${fmt(sum(b, (w) => w.statements) / sum(a, (w) => w.statements))}x`,
        target: "",
      },
    );
  }
  return out;
}

function printLedgers(one: Measured, three: Measured, label: string): void {
  for (const name of WINDOWS) {
    const perInstance = (m: Measured) =>
      (m[name][0]?.apps ?? []).map((_, i) =>
        fmt(
          perMinute(
            sum(m[name], (w) => w.apps[i] ?? 0),
            m[name].length,
          ),
        ),
      );
    const pgOf = (m: Measured) =>
      fmt(
        perMinute(
          sum(m[name], (w) => w.pg),
          m[name].length,
        ),
      );
    console.log(
      `${label}${name} window, app CPU-s a minute per instance: 1 instance ${perInstance(one).join(", ")}; 3 instances ${perInstance(three).join(", ")}; their PostgreSQL backends ${pgOf(one)} and ${pgOf(three)}`,
    );
    console.log(
      breakdown(
        `${label}statements a minute, ${name} window (${ROUNDS} rounds)`,
        ledger(one[name]),
        ledger(three[name]),
        process.env.BENCH_DEBUG ? Number.POSITIVE_INFINITY : 12,
      ).join("\n"),
    );
  }
}

export async function benchClusterIdle(): Promise<Row[]> {
  const beforeTree = process.env.BENCH_BEFORE_TREE;
  const pg = await startPostgres({
    durable: true,
    maxConnections: 200,
    settings: ["shared_preload_libraries = 'pg_stat_statements'", "pg_stat_statements.track_utility = on"],
  });
  try {
    const setup = pgClient(pg.url);
    await setup.connect();
    await setup.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await setup.end();
    const before: Partial<Record<1 | 3, Measured>> = {};
    const after: Partial<Record<1 | 3, Measured>> = {};
    for (const n of [1, 3] as const) {
      if (beforeTree) before[n] = await measure(pg, n, beforeTree);
      after[n] = await measure(pg, n);
    }
    const out: Row[] = [];
    if (after[1] && after[3]) {
      printLedgers(after[1], after[3], "");
      out.push(...rows(after[1], after[3], ""));
    }
    if (before[1] && before[3] && after[3]) {
      printLedgers(before[1], before[3], "BEFORE ");
      out.push(...rows(before[1], before[3], "BEFORE "));
      for (const name of WINDOWS) {
        const [now, then] = [sum(after[3][name], cpu), sum(before[3][name], cpu)];
        const [sNow, sThen] = [
          sum(after[3][name], (w) => w.statements),
          sum(before[3][name], (w) => w.statements),
        ];
        out.push({
          metric: `${name} window, 3 instances: CPU-s a minute and statements a minute, this tree vs BENCH_BEFORE_TREE`,
          value: `${fmt(perMinute(now, ROUNDS))}; ${fmt(perMinute(sNow, ROUNDS), 1)}`,
          baseline: `before ${fmt(perMinute(then, ROUNDS))}; ${fmt(perMinute(sThen, ROUNDS), 1)}`,
          ratio: `${fmt(now / then)}x; ${fmt(sNow / sThen)}x`,
          target: "",
        });
      }
    }
    return out;
  } finally {
    await pg.stop();
  }
}
