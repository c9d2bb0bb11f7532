// PostgreSQL's side of an ingest-pg burst, itemised (#45.2): where a message's WAL and statement
// time go, for a change to the schema or to chat-store's statements. One agentsvc instance on a
// durable PostgreSQL (pg_stat_statements loaded), BENCH_LEDGER_ROUNDS (3) bursts of ingest-pg's
// shape (5 s of 32 signed connections, each message on a new thread), each drained (every reply
// sent); BENCH_BEFORE_TREE=<a built worktree> alternates an older tree on a database of its own.
// Per message, summed over the rounds: WAL records by kind (pg_waldump --stats=record over the
// burst's LSN range: heap inserts and updates, HOT updates, btree leaf inserts, row locks, full
// page images' bytes, commits), WAL bytes, PostgreSQL CPU by process kind, and the statements (top-level
// and nested, the heads triggers' too) by exec ms with their calls and WAL records. Not in the
// default run: `pnpm bench ingest-pg-ledger`.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { postgresBinDir, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { type ChildServer, startChildServer } from "./child-server.ts";
import { ingest, SECRET } from "./ingest.ts";
import { pgClient, type PgClient } from "./pg-client.ts";
import { postgresCpuByKind } from "./pg-cpu.ts";
import { closeProbes, drained, locksLetGo, probePids } from "./pg-statements.ts";
import { machineLoad } from "./proc.ts";
import { fmt, type Row } from "./stats.ts";

const ROUNDS = Math.max(1, Number(process.env.BENCH_LEDGER_ROUNDS ?? 3));

interface Tally {
  name: string;
  messages: number;
  /** WAL record kind (`Heap/INSERT`, `Btree/INSERT_LEAF`, ...) -> records; `FPI` full page images. */
  wal: Map<string, number>;
  walBytes: number;
  /** Of which full page images (the first change of a page after a checkpoint). */
  fpiBytes: number;
  cpu: Map<string, number>;
  /** Statement text -> calls, exec ms, WAL records. */
  statements: Map<string, { calls: number; ms: number; plan: number; wal: number }>;
  loads: string[];
  /** pg_locks' row count, sampled during the bursts. */
  locks: number[];
  /** Table -> updates and HOT updates over the whole run (warm-up included), read once it ended. */
  updates: Map<string, { upd: number; hot: number }>;
}

const tally = (name: string): Tally => ({
  name,
  messages: 0,
  wal: new Map(),
  walBytes: 0,
  fpiBytes: 0,
  cpu: new Map(),
  statements: new Map(),
  loads: [],
  locks: [],
  updates: new Map(),
});

const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);

/** Records by kind between two LSNs, read from the server's own WAL files (pg_waldump). */
function walRecords(from: string, to: string, dataDir: string) {
  const out = execFileSync(
    join(postgresBinDir() as string, "pg_waldump"),
    ["--stats=record", "-p", join(dataDir, "pg_wal"), "-s", from, "-e", to],
    { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 16 << 20 },
  ).toString();
  const kinds = new Map<string, number>();
  let bytes = 0;
  let fpiBytes = 0;
  // "Heap/INSERT   N (%)   record bytes (%)   FPI bytes (%)   combined bytes (%)", one line a kind.
  const n = String.raw`(\d+)\s+\(\s*[\d.]+\)`;
  const line = new RegExp(String.raw`^(\S+/\S+)\s+${n}\s+${n}\s+${n}\s+${n}`);
  for (const text of out.split("\n")) {
    const m = line.exec(text);
    if (!m) continue;
    add(kinds, m[1] as string, Number(m[2]));
    fpiBytes += Number(m[4]);
    bytes += Number(m[5]);
  }
  return { kinds, bytes, fpiBytes };
}

/** The server's processes now (the postmaster's children), leaving out `exclude`. */
function serverPids(dataDir: string, exclude: readonly number[]): number[] {
  const postmaster = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0] as string;
  return readdirSync("/proc").flatMap((pid) => {
    if (!/^\d+$/.test(pid) || exclude.includes(Number(pid))) return [];
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] === postmaster ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
}

/**
 * BENCH_LEDGER_PERF=<folder>: perf samples of PostgreSQL's processes over the burst, one file a
 * burst (`perf report -i <file> --no-children --sort symbol`).
 */
function perfRecord(dataDir: string, exclude: readonly number[], t: Tally): ChildProcess {
  const file = join(
    process.env.BENCH_LEDGER_PERF as string,
    `${t.name}-${t.loads.length + 1}.data`.replace(/ /g, "-"),
  );
  const pids = serverPids(dataDir, exclude).join(",");
  return spawn("perf", ["record", "-q", "-F", "1999", "-g", "-o", file, "-p", pids], { stdio: "ignore" });
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGINT");
  });

async function burst(pg: TestPostgres, probe: PgClient, server: ChildServer, database: string, into: Tally) {
  const db = database.slice(database.lastIndexOf("/") + 1);
  await locksLetGo(database);
  await probe.query("SELECT pg_stat_statements_reset()");
  const lsn0 = String((await probe.query("SELECT pg_current_wal_insert_lsn() AS l")).rows[0]?.l);
  const own = await probePids();
  const cpu0 = postgresCpuByKind(pg.dataDir, own);
  const perf = process.env.BENCH_LEDGER_PERF ? perfRecord(pg.dataDir, own, into) : undefined;
  // pg_locks' rows while the burst runs (the fences and announcements scan them), on the probe.
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const n = Number((await probe.query("SELECT count(*) AS n FROM pg_locks")).rows[0]?.n);
      into.locks.push(n);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const result = await ingest(server.url);
  sampling = false;
  await sampler;
  await drained(database);
  if (perf) await stopped(perf);
  const cpu1 = postgresCpuByKind(pg.dataDir, own);
  const lsn1 = String((await probe.query("SELECT pg_current_wal_insert_lsn() AS l")).rows[0]?.l);
  const walOf = (await probe.query("SELECT pg_wal_lsn_diff($1, $2) AS b", [lsn1, lsn0])).rows[0]?.b;
  const cpuMs = ([...cpu1].reduce((a, [k, v]) => a + v - (cpu0.get(k) ?? 0), 0) * 1000) / result.sent;
  console.error(
    `${into.name} burst ${into.loads.length + 1}: ${result.sent} messages, PostgreSQL ${cpuMs.toFixed(2)} CPU ms and ${(Number(walOf) / result.sent).toFixed(0)} WAL bytes a message`,
  );
  into.messages += result.sent;
  into.loads.push(machineLoad().replace(/ on \d+ CPUs/, ""));
  for (const [k, s] of cpu1) add(into.cpu, k, s - (cpu0.get(k) ?? 0));
  // The switch makes the last record readable to pg_waldump (it stops at an incomplete one).
  await probe.query("SELECT pg_switch_wal()");
  const wal = walRecords(lsn0, lsn1, pg.dataDir);
  for (const [k, n] of wal.kinds) add(into.wal, k, n);
  into.walBytes += wal.bytes;
  into.fpiBytes += wal.fpiBytes;
  const rows = (
    await probe.query(
      `SELECT query, calls, total_exec_time AS ms, total_plan_time AS plan, wal_records AS wal FROM pg_stat_statements s
       JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
      [db],
    )
  ).rows;
  for (const r of rows) {
    const text = String(r.query).replace(/\s+/g, " ").slice(0, 150);
    const s = into.statements.get(text) ?? { calls: 0, ms: 0, plan: 0, wal: 0 };
    s.calls += Number(r.calls);
    s.ms += Number(r.ms);
    s.plan += Number(r.plan);
    s.wal += Number(r.wal);
    into.statements.set(text, s);
  }
}

function rowsOf(side: string, t: Tally): Row[] {
  const per = (n: number) => n / t.messages;
  const walTotal = [...t.wal.values()].reduce((a, b) => a + b, 0);
  const cpuTotal = [...t.cpu.values()].reduce((a, b) => a + b, 0);
  const rows: Row[] = [
    {
      metric: `${side}: WAL records a message (${t.messages} messages, load ${t.loads.join("; ")})`,
      value: fmt(per(walTotal), 1),
      baseline: `${fmt(per(t.walBytes), 0)} bytes (full page images ${fmt(per(t.fpiBytes), 0)})`,
      ratio: "",
      target: "(lower is better)",
    },
    {
      metric: `${side}: PostgreSQL CPU ms a message, by process`,
      value: fmt(per(cpuTotal * 1000), 2),
      baseline: [...t.cpu]
        .filter(([, s]) => s > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([k, s]) => `${k} ${fmt(per(s * 1000), 2)}`)
        .join(", "),
      ratio: "",
      target: "",
    },
  ];
  // An update is HOT when no indexed column changes and its page has room: it writes no index entry.
  for (const [table, u] of t.updates)
    rows.push({
      metric: `${side}: ${table} HOT updates / updates (pg_stat_user_tables, the run)`,
      value: `${u.hot} / ${u.upd}`,
      baseline: u.upd > 0 ? `${fmt((100 * u.hot) / u.upd, 0)}% HOT` : "",
      ratio: "",
      target: "",
    });
  const locks = [...t.locks].sort((a, b) => a - b);
  rows.push({
    metric: `${side}: pg_locks rows during the bursts (${locks.length} samples)`,
    value: `median ${locks[Math.floor(locks.length / 2)] ?? 0}`,
    baseline: `max ${locks.at(-1) ?? 0}`,
    ratio: "",
    target: "",
  });
  for (const [k, n] of [...t.wal].sort((a, b) => b[1] - a[1]).slice(0, 14))
    rows.push({ metric: `${side}: WAL ${k}`, value: fmt(per(n), 2), baseline: "", ratio: "", target: "" });
  // BENCH_LEDGER_STATEMENTS=<n>: how many statements to list (16), by exec ms.
  const listed = Number(process.env.BENCH_LEDGER_STATEMENTS ?? 16);
  for (const [text, s] of [...t.statements].sort((a, b) => b[1].ms - a[1].ms).slice(0, listed))
    rows.push({
      metric: `${side}: ${text}`,
      value: `${fmt(per(s.ms), 3)} ms`,
      baseline: `${fmt(per(s.calls), 2)} calls, plan ${fmt(per(s.plan), 3)} ms`,
      ratio: `${fmt(per(s.wal), 2)} WAL`,
      target: "",
    });
  return rows;
}

/** The message path's tables' updates and HOT updates in `database` (pg_stat_user_tables). */
async function tableUpdates(database: string, into: Tally): Promise<void> {
  const client = pgClient(database);
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT relname, n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables
       WHERE relname IN ('inbox', 'outbox', 'outbox_heads') ORDER BY relname`,
    );
    for (const r of rows) into.updates.set(String(r.relname), { upd: Number(r.upd), hot: Number(r.hot) });
  } finally {
    await client.end();
  }
}

interface Side {
  name: string;
  server: ChildServer;
  database: string;
  tally: Tally;
}

export async function benchIngestPostgresLedger(): Promise<Row[]> {
  const pg = await startPostgres({
    durable: true,
    settings: [
      "shared_preload_libraries = 'pg_stat_statements'",
      // Nested statements too: the outbox heads triggers' own.
      "pg_stat_statements.track = all",
      // Planning too: store-postgres's connections plan each named statement at each run.
      "pg_stat_statements.track_planning = on",
      // pg_waldump reads the bursts' WAL: none recycled before it is read.
      "wal_keep_size = '1GB'",
    ],
  });
  const sides: Side[] = [];
  const probe = pgClient(pg.url);
  try {
    await probe.connect();
    await probe.query("CREATE EXTENSION pg_stat_statements");
    const trees = [
      ...(process.env.BENCH_BEFORE_TREE ? [["before", process.env.BENCH_BEFORE_TREE]] : []),
      ["this tree", join(import.meta.dirname, "../../..")],
    ] as [string, string][];
    for (const [name, tree] of trees) {
      const database = await pg.createDatabase();
      const file = join(tree, "tooling/bench/src/servers/ingest-route-pg.ts");
      const server = await startChildServer(file, { BENCH_PG_URL: database, BENCH_HOOKS_SECRET: SECRET });
      sides.push({ name, server, database, tally: tally(name) });
      await ingest(server.url, { amount: 500 });
      await drained(database);
    }
    for (let i = 0; i < ROUNDS; i++) {
      // The older tree first in odd rounds, second in even ones.
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) await burst(pg, probe, s.server, s.database, s.tally);
    }
    // A backend reports its table counts when it ends (an idle one within seconds): servers stopped first.
    for (const s of sides) await s.server.stop();
    for (const s of sides) await tableUpdates(s.database, s.tally);
    return sides.flatMap((s) => rowsOf(s.name, s.tally));
  } finally {
    for (const s of sides) await s.server.stop();
    await probe.end().catch(() => {});
    await closeProbes();
    await pg.stop();
  }
}
