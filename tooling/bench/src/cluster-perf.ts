// BENCH_CLUSTER_PERF=<folder> (#45.3 gwprobe10): where a configuration's PostgreSQL CPU goes in
// cluster-cost's measured rounds, beyond its statements' execution. For each burst: `perf record -a
// -g` (cpu-clock; Debian's postgres keeps frame pointers, so the stacks are whole without debug
// symbols), each sample given to the process it ran in, by kind (this configuration's link backends,
// application_name `agentsvc-cluster` or pg-cluster's default, which LISTEN; its pools' backends,
// `agentsvc`; background processes by backend_type), and each backend sample to a phase by the frames
// on its stack (PHASES); beside it /proc's CPU by the same kinds, planning ms by statement
// (track_planning is on with this knob), WAL bytes by LSN. pg_stat_wal's and pg_stat_database's
// counts are printed too, but a busy backend reports them up to 10 s late (PostgreSQL 15's pending
// stats), often between bursts: read them over a run, not a burst. Not in the default run: perf
// costs the machine 1-3% and writes ~1-2 MB a burst. The same samples split the instances' own CPU
// (cluster-app-perf.ts).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  type AppTally,
  appCounts,
  appTally,
  perfMapSizes,
  tallyAppSamples,
  tallyCompiled,
} from "./cluster-app-perf.ts";
import type { PgClient } from "./pg-client.ts";
import { cpuSecondsOf } from "./proc.ts";
import { fmt } from "./stats.ts";

export const PERF_DIR = process.env.BENCH_CLUSTER_PERF;
export const HZ = 999;

/**
 * A backend sample's phase: the first group (in this order) with a frame on the stack. Names are
 * PostgreSQL 15's exported functions (its static ones show as [unknown] in a stripped binary).
 * notify: the listener reading the queue and sending each NOTIFY to its client
 * (ProcessNotifyInterrupt), the sender queueing at commit and signalling the listeners
 * (PreCommit_Notify, AtCommit_Notify). It comes before commit, whose stack holds the sender's part.
 */
const PHASES: [string, RegExp][] = [
  [
    "notify",
    /^(ProcessNotifyInterrupt|HandleNotifyInterrupt|NotifyMyFrontEnd|Async_Notify|PreCommit_Notify|AtCommit_Notify|AtAbort_Notify|pg_notify|asyncQueue\w*|SignalBackends|Async_Listen|Async_Unlisten\w*)$/,
  ],
  [
    "xact commit/WAL",
    /^(CommitTransactionCommand|StartTransactionCommand|AbortCurrentTransaction|XLogFlush|XLogWrite|issue_xlog_fsync)$/,
  ],
  // GetCachedPlan: a custom plan's copy of the query tree too (BuildCachedPlan), at each run.
  ["planner", /^(pg_plan_queries|pg_plan_query|planner|standard_planner|subquery_planner|GetCachedPlan)$/],
  [
    "parser",
    /^(pg_parse_query|raw_parser|parse_analyze\w*|pg_analyze_and_rewrite\w*|pg_rewrite_query|RevalidateCachedQuery|CreateCachedPlan|CompleteCachedPlan)$/,
  ],
  [
    "executor",
    /^(PortalRun|PortalStart|PortalDrop|ExecutorStart|ExecutorRun|ExecutorFinish|ExecutorEnd|standard_Executor\w*|ProcessUtility|standard_ProcessUtility)$/,
  ],
  // A Bind message's parameters read from their text (arrays: array_in), before the executor.
  ["bind parameters", /^(InputFunctionCall|OidInputFunctionCall|ReceiveFunctionCall|getTypeInputInfo)$/],
  // The kernel's loopback TCP too (a softirq's receive often runs in the sender's time, user frames none).
  [
    "client I/O",
    /^(secure_read|secure_write|pq_\w+|socket_\w+|tcp_\w+|__tcp_\w+|ip_\w+|net_rx_action|__napi_poll|sock_\w+|skb_\w+)$/,
  ],
];
const OTHER = "other";

export interface PerfTally {
  messages: number;
  /** Samples by process kind, and by kind and phase for backends ("link · planner"). */
  samples: Map<string, number>;
  /** /proc CPU seconds by process kind. */
  cpu: Map<string, number>;
  /** pg_stat_wal and pg_stat_database deltas (server-wide WAL, this database's commits). */
  counters: Map<string, number>;
  /** The configuration's instances (cluster-app-perf.ts). */
  app: AppTally;
}

export const perfTally = (): PerfTally => ({
  messages: 0,
  samples: new Map(),
  cpu: new Map(),
  counters: new Map(),
  app: appTally(),
});

const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);

/** pid -> kind for the server's processes now (pg_stat_activity; the probe's own backends "probe"). */
async function kinds(stats: PgClient, dbName: string, own: readonly number[]): Promise<Map<number, string>> {
  const { rows } = await stats.query(
    "SELECT pid, datname, application_name AS app, backend_type AS type FROM pg_stat_activity",
  );
  const out = new Map<number, string>();
  for (const r of rows) {
    const pid = Number(r.pid);
    let kind = String(r.type);
    if (own.includes(pid)) kind = "probe";
    else if (r.type === "client backend")
      kind =
        r.datname !== dbName
          ? "other databases"
          : r.app === "agentsvc-cluster" || r.app === "agentsvc-pg-cluster"
            ? "link"
            : r.app === "agentsvc"
              ? "pool"
              : `backend ${String(r.app)}`;
    out.set(pid, kind);
  }
  return out;
}

/** CPU seconds so far of the postmaster's children (and itself, its reaped children included). */
function procCpu(dataDir: string): Map<number, number> {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const out = new Map<number, number>();
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(p);
      if (pid !== postmaster && Number(f[1]) !== postmaster) continue;
      const ticks = Number(f[11]) + Number(f[12]) + (pid === postmaster ? Number(f[13]) + Number(f[14]) : 0);
      out.set(pid, ticks / 100);
    } catch {}
  }
  out.set(-1, postmaster); // the postmaster's pid, for its kind
  return out;
}

async function counters(stats: PgClient, dbName: string): Promise<Map<string, number>> {
  const { rows } = await stats.query(
    `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS wal_lsn_bytes, w.wal_records, w.wal_fpi, w.wal_bytes, w.wal_write, w.wal_sync, d.xact_commit, d.xact_rollback,
         (SELECT sum(s.total_plan_time) FROM pg_stat_statements s WHERE s.dbid = d.datid AND s.query NOT LIKE '%bench_probe%') AS plan_ms,
         (SELECT sum(s.total_exec_time) FROM pg_stat_statements s WHERE s.dbid = d.datid AND s.query NOT LIKE '%bench_probe%') AS exec_ms
       FROM pg_stat_wal w, pg_stat_database d WHERE d.datname = $1`,
    [dbName],
  );
  const out = new Map(Object.entries(rows[0] ?? {}).map(([k, v]) => [k, Number(v)]));
  // Planning ms and calls by statement (its first 70 characters).
  const plans = await stats.query(
    `SELECT left(regexp_replace(s.query, '\\s+', ' ', 'g'), 70) AS q, sum(s.total_plan_time) AS ms, sum(s.calls) AS n
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = $1 AND s.query NOT LIKE '%bench_probe%' GROUP BY 1`,
    [dbName],
  );
  for (const r of plans.rows) {
    out.set(`plan ms · ${String(r.q)}`, Number(r.ms));
    out.set(`calls · ${String(r.q)}`, Number(r.n));
  }
  return out;
}

export interface BurstPerf {
  stop(messages: number, into: PerfTally): Promise<void>;
}

/** Starts perf and the readings for one burst of a configuration; `stop` adds it to a tally. */
export async function startBurstPerf(
  stats: PgClient,
  dataDir: string,
  dbName: string,
  own: readonly number[],
  file: string,
  appPids: readonly number[],
): Promise<BurstPerf> {
  const kind0 = await kinds(stats, dbName, own);
  const appCpu = () => appPids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
  const cpu0 = procCpu(dataDir);
  const c0 = await counters(stats, dbName);
  // A folder that does not exist yet is made: perf would exit at once, and stop() wait for ever.
  mkdirSync(dirname(file), { recursive: true });
  const perf: ChildProcess = spawn("perf", ["record", "-q", "-a", "-g", "-F", String(HZ), "-o", file], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let perfErr = "";
  perf.stderr?.on("data", (d: Buffer) => {
    perfErr += d.toString();
  });
  // perf attaches to every CPU before it samples: the burst starts once it has.
  await new Promise((r) => setTimeout(r, 300));
  if (perf.exitCode !== null || perf.signalCode !== null) {
    throw new Error(
      `BENCH_CLUSTER_PERF: perf record exited at once (${perf.exitCode ?? perf.signalCode}): ${perfErr.trim()}`,
    );
  }
  const app0 = appCpu();
  const counts0 = appCounts(appPids);
  const maps0 = perfMapSizes(appPids);
  return {
    async stop(messages, into) {
      await new Promise<void>((resolve) => {
        perf.once("exit", () => resolve());
        perf.kill("SIGINT");
      });
      into.app.procSeconds += appCpu() - app0;
      for (const [k, v] of appCounts(appPids)) add(into.app.counts, k, v - (counts0.get(k) ?? 0));
      const c1 = await counters(stats, dbName);
      const cpu1 = procCpu(dataDir);
      const kind = new Map([...kind0, ...(await kinds(stats, dbName, own))]);
      kind.set(cpu1.get(-1) as number, "postmaster");
      into.messages += messages;
      for (const [k, v] of c1) add(into.counters, k, v - (c0.get(k) ?? 0));
      for (const [pid, s] of cpu1)
        if (pid > 0) add(into.cpu, kind.get(pid) ?? "exited", s - (cpu0.get(pid) ?? 0));
      tallySamples(file, kind, into);
      tallyAppSamples(file, appPids, into.app);
      tallyCompiled(maps0, into.app);
    },
  };
}

/** Reads a burst's perf file: PostgreSQL's samples by process kind, backends' by phase too. */
export function tallySamples(file: string, kind: Map<number, string>, into: PerfTally): void {
  const out = execFileSync("perf", ["script", "-i", file, "--comms", "postgres", "-F", "pid,ip,sym"], {
    stdio: ["ignore", "pipe", "ignore"],
    maxBuffer: 1 << 30,
  }).toString();
  for (const block of out.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) continue;
    const k = kind.get(Number(lines[0]?.trim())) ?? "exited";
    add(into.samples, k, 1);
    if (k !== "link" && k !== "pool") continue;
    const frames = lines.slice(1).map((l) => l.trim().split(/\s+/)[1] ?? "");
    const phase = PHASES.find(([, re]) => frames.some((f) => re.test(f)))?.[0] ?? OTHER;
    add(into.samples, `${k} · ${phase}`, 1);
    if (k !== "pool") continue;
    const fn = FUNCTIONS.find(([, re]) => frames.some((f) => re.test(f)))?.[0];
    if (fn) add(into.samples, `${k} · in ${fn}`, 1);
  }
}

/**
 * The pool backends' samples inside a plpgsql function, by who called it (pgexec12): a statement
 * calling one (the announcing inbox accept, chat-store pg-writes.ts; the only such call in a gateway
 * burst) or a trigger (the outbox heads). Their calls' cost a message, beside the statement's exec ms.
 */
const FUNCTIONS: [string, RegExp][] = [
  ["trigger functions (outbox heads)", /^plpgsql_exec_trigger$/],
  ["functions a statement calls (the announcing inbox accept)", /^plpgsql_exec_function$/],
];

/** Lines for one configuration: ms a message by process kind (perf and /proc) and by phase. */
export function perfLines(title: string, t: PerfTally): string[] {
  const ms = (n: number) => fmt(n / t.messages, 3);
  const perSample = 1000 / HZ;
  const kindsSeen = [...t.cpu.keys(), ...[...t.samples.keys()].filter((k) => !k.includes(" · "))];
  const lines = [`${title}: PostgreSQL ms a message (${t.messages} messages; perf at ${HZ} Hz and /proc)`];
  for (const k of [...new Set(kindsSeen)].sort((a, b) => (t.cpu.get(b) ?? 0) - (t.cpu.get(a) ?? 0)))
    lines.push(
      `  ${k}: /proc ${ms((t.cpu.get(k) ?? 0) * 1000)}, perf ${ms((t.samples.get(k) ?? 0) * perSample)}`,
    );
  for (const k of ["link", "pool"])
    for (const [phase] of [...PHASES, [OTHER]])
      lines.push(`  ${k} · ${phase}: perf ${ms((t.samples.get(`${k} · ${phase}`) ?? 0) * perSample)}`);
  for (const [fn] of FUNCTIONS)
    lines.push(`  pool · in ${fn}: perf ${ms((t.samples.get(`pool · in ${fn}`) ?? 0) * perSample)}`);
  const c = (k: string) => fmt((t.counters.get(k) ?? 0) / t.messages, 3);
  lines.push(
    `  statements' planning ${c("plan_ms")} ms and execution ${c("exec_ms")} ms a message (pg_stat_statements, track_planning)`,
    ...[...t.counters]
      .filter(([k]) => k.startsWith("plan ms · "))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([k, v]) => {
        const q = k.slice("plan ms · ".length);
        return `  planning ${fmt(v / t.messages, 4)} ms, ${c(`calls · ${q}`)} calls a message: ${q}`;
      }),
    `  a message: commits ${c("xact_commit")}, rollbacks ${c("xact_rollback")}, WAL records ${c("wal_records")}, ` +
      `WAL bytes ${c("wal_bytes")}, full pages ${c("wal_fpi")}, WAL bytes by LSN ${c("wal_lsn_bytes")}, WAL writes ${c("wal_write")}, WAL syncs ${c("wal_sync")} (server-wide; pg_stat_* lag up to a backend's next flush, the LSN does not)`,
  );
  return lines;
}
