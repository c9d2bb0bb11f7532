// The gateway ingest row on PostgreSQL: one agentsvc instance, and three over the same database
// (the 32 connections split between them), beside a bare Hono handler inserting each verified
// event into the same PostgreSQL (servers/bare-ingest-pg.ts). Throwaway server, durability on.
// BENCH_BEFORE_TREE=<worktree of an older commit, built> also measures that commit's one instance,
// on a fresh database of the same server, right after this tree's (the "before" of a change).
import { join, resolve } from "node:path";
import { startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { type ChildServer, startChildServer } from "./child-server.ts";
import { CONNECTIONS, ingest, SECRET } from "./ingest.ts";
import { drained, statementsPerMessage } from "./pg-statements.ts";
import { postgresCpuSeconds } from "./pg-cpu.ts";
import { cpuSecondsOf, machineLoad } from "./proc.ts";
import { fmt, type Row } from "./stats.ts";

/**
 * The measured burst, then until every message of it is answered (record done, reply sent): req/s
 * of the burst, and messages answered per second from its start. A server whose turns finish
 * sooner takes CPU from its own accepts during the burst; the answered rate counts both.
 */
async function burst(server: ChildServer, database: string, pg: TestPostgres): Promise<Burst> {
  const cpu = cpuSecondsOf(server.pid);
  const pgCpu = postgresCpuSeconds(pg.dataDir);
  const start = performance.now();
  const result = await ingest(server.url);
  await drained(database);
  // drained() waits 500 ms once the queues are empty (the sender's last look): not the server's time.
  const wall = (performance.now() - start - 500) / 1000;
  return {
    rps: result.rps,
    answered: result.sent / wall,
    // CPU per message survives a loaded machine (waiting for a CPU is not counted); rates do not.
    cpuMs: ((cpuSecondsOf(server.pid) - cpu) * 1000) / result.sent,
    pgCpuMs: ((postgresCpuSeconds(pg.dataDir) - pgCpu) * 1000) / result.sent,
  };
}

interface Burst {
  rps: number;
  answered: number;
  cpuMs: number;
  pgCpuMs: number;
}

export async function benchIngestPostgres(): Promise<Row[]> {
  const pg = await startPostgres({ durable: true });
  const servers: ChildServer[] = [];
  try {
    const url = await pg.createDatabase();
    const env = { BENCH_PG_URL: url, BENCH_HOOKS_SECRET: SECRET };
    const loadBefore = machineLoad();
    const bare = await startChildServer(resolve(import.meta.dirname, "servers/bare-ingest-pg.ts"), env);
    await ingest(bare.url, { amount: 500 });
    const bareRps = (await ingest(bare.url)).rps;
    await bare.stop();
    // Before ours starts: its turns still running after its burst would share the CPU.
    const before = process.env.BENCH_BEFORE_TREE;
    let old: Burst | undefined;
    if (before) {
      const file = join(before, "tooling/bench/src/servers/ingest-route-pg.ts");
      const database = await pg.createDatabase();
      const side = await startChildServer(file, { ...env, BENCH_PG_URL: database });
      try {
        await ingest(side.url, { amount: 500 });
        await drained(database);
        old = await burst(side, database, pg);
      } finally {
        await side.stop();
      }
    }

    const route = resolve(import.meta.dirname, "servers/ingest-route-pg.ts");
    servers.push(await startChildServer(route, env)); // migrates
    const [first] = servers as [ChildServer];
    await ingest(first.url, { amount: 500 });
    await drained(url);
    const mine = await burst(first, url, pg);
    const one = mine.rps;
    servers.push(...(await Promise.all([1, 2].map(() => startChildServer(route, env)))));
    for (const s of servers.slice(1)) await ingest(s.url, { amount: 200 });
    const shares = [11, 11, 10];
    const three = (
      await Promise.all(servers.map((s, i) => ingest(s.url, { connections: shares[i] as number })))
    ).reduce((sum, r) => sum + r.rps, 0);
    const load = `${loadBefore} → ${machineLoad()}`;
    for (const s of servers.splice(0)) await s.stop();
    const statements = await statementsPerMessage(await pg.createDatabase(), SECRET);
    const rows: Row[] = [
      {
        metric: `gateway ingest req/s on PostgreSQL, 1 instance, ${CONNECTIONS} connections (${load})`,
        value: fmt(one, 0),
        baseline: `bare durable (pg) ${fmt(bareRps, 0)}`,
        ratio: `${fmt(one / bareRps)}x`,
        target: ">= 0.5x",
      },
      ...(old === undefined
        ? []
        : [
            {
              metric: `gateway ingest req/s on PostgreSQL, 1 instance, vs the same server at ${before}`,
              value: fmt(one, 0),
              baseline: `before ${fmt(old.rps, 0)}`,
              ratio: `${fmt(one / old.rps)}x`,
              target: "(higher is better)",
            },
            {
              metric:
                "gateway messages answered per second on PostgreSQL (burst start to every reply sent), 1 instance",
              value: fmt(mine.answered, 0),
              baseline: `before ${fmt(old.answered, 0)}`,
              ratio: `${fmt(mine.answered / old.answered)}x`,
              target: "(higher is better)",
            },
            {
              metric:
                "CPU ms per gateway message on PostgreSQL (burst until answered), 1 instance: the server",
              value: fmt(mine.cpuMs, 2),
              baseline: `before ${fmt(old.cpuMs, 2)}`,
              ratio: `${fmt(mine.cpuMs / old.cpuMs)}x`,
              target: "(lower is better)",
            },
            {
              metric:
                "CPU ms per gateway message on PostgreSQL (burst until answered), 1 instance: PostgreSQL",
              value: fmt(mine.pgCpuMs, 2),
              baseline: `before ${fmt(old.pgCpuMs, 2)}`,
              ratio: `${fmt(mine.pgCpuMs / old.pgCpuMs)}x`,
              target: "(lower is better)",
            },
          ]),
      {
        metric: `gateway ingest req/s on PostgreSQL, 3 instances over one database (${CONNECTIONS} connections in all)`,
        value: fmt(three, 0),
        baseline: `bare durable (pg) ${fmt(bareRps, 0)}`,
        ratio: `${fmt(three / bareRps)}x`,
        target: "(2 shared CPUs: more instances share them)",
      },
      {
        metric: `statements (round trips) per gateway message on PostgreSQL, 1 instance: ${statements.byVerb}`,
        value: fmt(statements.perMessage, 1),
        baseline: "bare durable (pg) 1",
        ratio: `${fmt(statements.perMessage)}x`,
        target: "(fewer is cheaper: each is a write, a wake-up and a parse)",
      },
    ];
    return rows;
  } finally {
    for (const s of servers) await s.stop();
    await pg.stop();
  }
}
