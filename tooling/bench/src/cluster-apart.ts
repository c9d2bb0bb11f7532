// What a cluster adds to /agent/invoke's CPU per request, apart from running more processes on the
// same CPUs (#45.3). Three configurations side by side on one durable PostgreSQL: one instance,
// three instances over one database (a cluster), and three instances each on a database of its own
// (three clusters of one: the same processes, connections and load, nothing shared). Each round
// sends every configuration a burst in turn (a different one first each round), the same requests
// per instance (10 connections each), so the machine's load drifts through all three alike and
// every process is at the same point of its warm-up; the cluster's own cost is three in a cluster
// against three apart.
import { startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import autocannon from "autocannon";
import { type ChildServer, startChildServer } from "./child-server.ts";
import { type PgClient, pgClient } from "./pg-client.ts";
import { postgresCpuSeconds } from "./pg-cpu.ts";
import { cpuSecondsOf, machineLoad } from "./proc.ts";
import { fmt, percentile, type Row } from "./stats.ts";

const ROUNDS = Number(process.env.BENCH_APART_ROUNDS ?? 6);
/** Requests per instance in each burst: the cluster bench's 2,000 over three. */
const EACH = Number(process.env.BENCH_APART_EACH ?? 667);
/** Per instance before the first round (the cluster bench's two warm-up bursts of 300). */
const WARM = 600;
const CONNECTIONS = 10;

interface Config {
  name: string;
  servers: ChildServer[];
  dbNames: string[];
  /** Per round: CPU seconds per 1,000 requests (instances, PostgreSQL) and statements per request. */
  app: number[];
  pg: number[];
  statements: number[];
}

let tag = 0;

async function invoke(url: string, amount: number): Promise<void> {
  const run = ++tag;
  let seq = 0;
  const result = await autocannon({
    url: `${url}/agent/invoke`,
    method: "POST",
    connections: CONNECTIONS,
    amount,
    headers: { "content-type": "application/json" },
    // One conversation per request: no history grows over the run.
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ input: "hello benchmark", conversationId: `a${run}-${++seq}` }),
        }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
}

/** `instances` servers on `databases` databases (1: one cluster; `instances`: each apart). */
async function start(pg: TestPostgres, name: string, instances: number, databases: number): Promise<Config> {
  const file = new URL("./servers/route-pg.ts", import.meta.url).pathname;
  const config: Config = { name, servers: [], dbNames: [], app: [], pg: [], statements: [] };
  let url = "";
  for (let i = 0; i < instances; i++) {
    if (i < databases) {
      url = await pg.createDatabase();
      config.dbNames.push(new URL(url).pathname.slice(1));
    }
    // The first instance on a database migrates it; the others find the schema in place.
    config.servers.push(await startChildServer(file, { BENCH_PG_URL: url }));
  }
  return config;
}

async function statementsOf(stats: PgClient, dbNames: string[]): Promise<number> {
  const { rows } = await stats.query(
    `SELECT coalesce(sum(s.calls), 0)::text AS n FROM pg_stat_statements s
       JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ANY($1::text[])`,
    [dbNames],
  );
  return Number(rows[0]?.n ?? 0);
}

async function burst(config: Config, pg: TestPostgres, stats: PgClient): Promise<void> {
  // The probe's own backend left out; the other configurations' instances are at rest meanwhile.
  const own = stats.processID === undefined ? [] : [stats.processID];
  const read = async () => ({
    app: config.servers.reduce((sum, s) => sum + cpuSecondsOf(s.pid), 0),
    pg: postgresCpuSeconds(pg.dataDir, own),
    statements: await statementsOf(stats, config.dbNames),
  });
  const a = await read();
  await Promise.all(config.servers.map((s) => invoke(s.url, EACH)));
  const b = await read();
  const sent = EACH * config.servers.length;
  config.app.push(((b.app - a.app) / sent) * 1000);
  config.pg.push(((b.pg - a.pg) / sent) * 1000);
  config.statements.push((b.statements - a.statements) / sent);
}

export async function benchClusterApart(): Promise<Row[]> {
  const pg = await startPostgres({
    durable: true,
    maxConnections: 200,
    settings: ["shared_preload_libraries = 'pg_stat_statements'", "pg_stat_statements.track_utility = on"],
  });
  const stats = pgClient(pg.url);
  const configs: Config[] = [];
  try {
    await stats.connect();
    await stats.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    configs.push(
      await start(pg, "1 instance", 1, 1),
      await start(pg, "3 in a cluster", 3, 1),
      await start(pg, "3 apart", 3, 3),
    );
    for (const c of configs) await Promise.all(c.servers.map((s) => invoke(s.url, WARM)));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the next configuration: none always follows another's burst.
      for (let i = 0; i < configs.length; i++)
        await burst(configs[(round + i) % configs.length] as Config, pg, stats);
      console.log(
        `round ${round + 1}: app + PostgreSQL CPU-s per 1,000 ${configs
          .map((c) => `${c.name} ${fmt(c.app[round] as number)} + ${fmt(c.pg[round] as number)}`)
          .join(", ")} (${machineLoad()})`,
      );
    }
    return rows(configs);
  } finally {
    for (const c of configs) await Promise.all(c.servers.map((s) => s.stop()));
    await stats.end();
    await pg.stop();
  }
}

/** Median (min-max) of per-round figures. */
const spread = (xs: number[], digits = 2) =>
  `${fmt(percentile(xs, 50), digits)} (${fmt(Math.min(...xs), digits)}-${fmt(Math.max(...xs), digits)})`;

function rows(configs: Config[]): Row[] {
  const [one, cluster, apart] = configs as [Config, Config, Config];
  const total = (c: Config) => c.app.map((a, i) => a + (c.pg[i] as number));
  const sum = (xs: number[]) => xs.reduce((t, x) => t + x, 0);
  /**
   * Over all rounds, then round by round (median, min-max): `a` against `b` in the same round, where
   * the load of that moment divides out.
   */
  const paired = (a: number[], b: number[]) =>
    `${fmt(sum(a) / sum(b))}x (rounds ${spread(a.map((x, i) => x / (b[i] as number)))})`;
  const load = machineLoad();
  const cpuRow = (a: Config, b: Config, target: string): Row => ({
    metric: `/agent/invoke CPU-s per 1,000 (app + PostgreSQL), ${a.name} vs ${b.name} (${ROUNDS} rounds of ${EACH} requests per instance, ${CONNECTIONS} connections each; ${load})`,
    value: `${spread(total(a))} (app ${spread(a.app)})`,
    baseline: `${b.name} ${spread(total(b))} (app ${spread(b.app)})`,
    ratio: paired(total(a), total(b)),
    target,
  });
  return [
    cpuRow(cluster, one, "<= 1.2x"),
    cpuRow(apart, one, ""),
    // What the cluster itself adds: the same processes on the same CPUs, with and without sharing a database.
    cpuRow(cluster, apart, ""),
    {
      metric: "/agent/invoke statements per request, 3 in a cluster vs 1 instance and 3 apart",
      value: spread(cluster.statements),
      baseline: `1 instance ${spread(one.statements)}, 3 apart ${spread(apart.statements)}`,
      ratio: paired(cluster.statements, one.statements),
      target: "",
    },
  ];
}
