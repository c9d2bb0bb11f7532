// The gateway ingest rows on PostgreSQL: one agentsvc instance, and three over the same database
// (the 32 connections split between them), beside a bare Hono handler inserting each verified
// event into the same PostgreSQL (servers/bare-ingest-pg.ts). Throwaway server, durability on.
// Two figures, each against the bare handler's accept rate, both kept:
//   (a) accepted per second during the burst while the accepted messages' turns run: what a
//       webhook platform sees (the 202 comes once the row is durable), the target of #45;
//   (b) answered per second, from the burst's start until every message of it is answered
//       (record done, reply sent): accepts and turns together.
// A server whose turns end sooner takes CPU from its own accepts during the burst: (a) can fall
// while (b) rises, so both are printed, with the CPU per message (which survives a loaded machine).
// BENCH_BEFORE_TREE=<worktree of an older commit, built> also measures that commit's one instance,
// on a fresh database of the same server, right before this tree's (the "before" of a change).
import { join, resolve } from "node:path";
import { startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { type ChildServer, startChildServer } from "./child-server.ts";
import { CONNECTIONS, ingest, SECRET } from "./ingest.ts";
import { drained, statementsPerMessage } from "./pg-statements.ts";
import { postgresCpuSeconds } from "./pg-cpu.ts";
import { cpuSecondsOf, machineLoad } from "./proc.ts";
import { fmt, type Row } from "./stats.ts";

interface Burst {
  /** (a) requests answered 2xx per second during the burst. */
  rps: number;
  /** (b) messages answered per second, burst start to every reply sent (agentsvc only). */
  answered: number;
  /** CPU per message from the burst's start until it is answered (the bare handler: its burst). */
  cpuMs: number;
  pgCpuMs: number;
}

/**
 * The measured burst; with `database`, then until every message of it is answered (drained).
 * CPU is read from /proc: waiting for a CPU on a busy machine is not counted.
 */
async function burst(server: ChildServer, pg: TestPostgres, database?: string): Promise<Burst> {
  const cpu = cpuSecondsOf(server.pid);
  const pgCpu = postgresCpuSeconds(pg.dataDir);
  const start = performance.now();
  const result = await ingest(server.url);
  if (database) await drained(database);
  // drained() waits 500 ms once the queues are empty (the sender's last look): not the server's time.
  const wall = (performance.now() - start - (database ? 500 : 0)) / 1000;
  return {
    rps: result.rps,
    answered: result.sent / wall,
    cpuMs: ((cpuSecondsOf(server.pid) - cpu) * 1000) / result.sent,
    pgCpuMs: ((postgresCpuSeconds(pg.dataDir) - pgCpu) * 1000) / result.sent,
  };
}

/** One agentsvc instance (this tree's server script, or an older tree's) on a fresh database, warmed. */
async function measureOne(file: string, pg: TestPostgres, env: Record<string, string>): Promise<Burst> {
  const database = await pg.createDatabase();
  const server = await startChildServer(file, { ...env, BENCH_PG_URL: database });
  try {
    await ingest(server.url, { amount: 500 });
    await drained(database);
    return await burst(server, pg, database);
  } finally {
    await server.stop();
  }
}

const x = (a: number, b: number) => `${fmt(a / b)}x`;

/** (a), (b) and the CPU rows of `mine` against `base` (the bare handler, or the before tree). */
function rowsAgainst(mine: Burst, base: Burst, label: string, bare: boolean): Row[] {
  const against = bare ? "bare durable (pg)" : "before";
  const short = bare ? "" : " (vs before)";
  return [
    {
      metric: `(a) accepted/s during the burst, turns running: what a webhook platform sees, 1 instance ${label}`,
      value: fmt(mine.rps, 0),
      baseline: `${against} ${fmt(base.rps, 0)}`,
      ratio: x(mine.rps, base.rps),
      target: bare ? ">= 0.5x (#45)" : "(higher is better)",
    },
    {
      metric: `(b) answered/s, burst start until every reply is sent (accept + turn + reply), 1 instance${short}`,
      value: fmt(mine.answered, 0),
      // The bare handler has no turn: its (b) is its accept rate.
      baseline: `${against} ${fmt(bare ? base.rps : base.answered, 0)}`,
      ratio: x(mine.answered, bare ? base.rps : base.answered),
      target: "(higher is better; no target)",
    },
    ...(["server", "PostgreSQL"] as const).map((who) => {
      const [m, b] = who === "server" ? [mine.cpuMs, base.cpuMs] : [mine.pgCpuMs, base.pgCpuMs];
      return {
        metric: `CPU ms per message, burst until answered: ${who}${bare ? " (bare: verify + INSERT only)" : short}`,
        value: fmt(m, 2),
        baseline: `${against} ${fmt(b, 2)}`,
        ratio: x(m, b),
        target: "(lower is better)",
      };
    }),
  ];
}

export async function benchIngestPostgres(): Promise<Row[]> {
  const pg = await startPostgres({ durable: true });
  const servers: ChildServer[] = [];
  try {
    const url = await pg.createDatabase();
    const env = { BENCH_PG_URL: url, BENCH_HOOKS_SECRET: SECRET };
    const loadBefore = machineLoad();
    const bareServer = await startChildServer(resolve(import.meta.dirname, "servers/bare-ingest-pg.ts"), env);
    let bare: Burst;
    try {
      await ingest(bareServer.url, { amount: 500 });
      bare = await burst(bareServer, pg);
    } finally {
      await bareServer.stop();
    }
    // Before ours starts: its turns still running after its burst would share the CPU.
    const before = process.env.BENCH_BEFORE_TREE;
    const old = before
      ? await measureOne(join(before, "tooling/bench/src/servers/ingest-route-pg.ts"), pg, env)
      : undefined;

    const route = resolve(import.meta.dirname, "servers/ingest-route-pg.ts");
    servers.push(await startChildServer(route, env)); // migrates
    const [first] = servers as [ChildServer];
    await ingest(first.url, { amount: 500 });
    await drained(url);
    const mine = await burst(first, pg, url);
    servers.push(...(await Promise.all([1, 2].map(() => startChildServer(route, env)))));
    for (const s of servers.slice(1)) await ingest(s.url, { amount: 200 });
    const shares = [11, 11, 10];
    const three = (
      await Promise.all(servers.map((s, i) => ingest(s.url, { connections: shares[i] as number })))
    ).reduce((sum, r) => sum + r.rps, 0);
    const load = `${loadBefore} → ${machineLoad()}`;
    for (const s of servers.splice(0)) await s.stop();
    const statements = await statementsPerMessage(await pg.createDatabase(), SECRET);
    return [
      ...rowsAgainst(mine, bare, `(${CONNECTIONS} connections, ${load})`, true),
      ...(old ? rowsAgainst(mine, old, `vs the same server at ${before}`, false) : []),
      {
        metric: `(a) on 3 instances over one database (${CONNECTIONS} connections in all)`,
        value: fmt(three, 0),
        baseline: `bare durable (pg) ${fmt(bare.rps, 0)}`,
        ratio: x(three, bare.rps),
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
  } finally {
    for (const s of servers) await s.stop();
    await pg.stop();
  }
}
