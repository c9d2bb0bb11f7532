// Statements per gateway message on PostgreSQL: the ingest project served in this process, every
// statement its pooled and cluster connections send counted by a wrapper on the pg Client (one
// statement = one round trip: node-postgres sends the next only after the answer), over a burst
// of signed events on fresh threads until every one is done and its reply sent. The bare durable
// handler sends one statement per event.
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { startServer } from "@agentsvc/server";
import pino from "pino";
import { ingest } from "./ingest.ts";
import { type PgClient, pgClient } from "./pg-client.ts";

interface Counted {
  perMessage: number;
  byVerb: string;
}

/**
 * The bench's own connection per database for `drained`, opened once: a psql per look (ten a
 * second) was a process and a PostgreSQL backend started each time, CPU taken from the server
 * being measured and counted in PostgreSQL's (a backend that exits is counted in the postmaster's
 * children). Its statements are not counted by `statementsPerMessage`, its backend is left out of
 * PostgreSQL's CPU (`probePids`).
 */
const probes = new Map<string, Promise<PgClient>>();
const probeClients = new WeakSet<object>();

function probe(url: string): Promise<PgClient> {
  let client = probes.get(url);
  if (!client) {
    const c = pgClient(url);
    probeClients.add(c);
    client = c.connect().then(() => c);
    probes.set(url, client);
  }
  return client;
}

/** Backend pids of the open probe connections (for `postgresCpuSeconds(dataDir, exclude)`). */
export async function probePids(): Promise<number[]> {
  const clients = await Promise.all(probes.values());
  return clients.flatMap((c) => (c.processID === undefined ? [] : [c.processID]));
}

/** Closes the probe connections (before the server stops). */
export async function closeProbes(): Promise<void> {
  const clients = await Promise.all(probes.values());
  probes.clear();
  await Promise.all(clients.map((c) => c.end()));
}

/** Every inbox record finished and every reply sent; asked on the probe connection (not counted). */
export async function drained(url: string): Promise<void> {
  const client = await probe(url);
  const busy = `SELECT (SELECT count(*) FROM inbox WHERE status IN ('queued', 'running'))
    + (SELECT count(*) FROM outbox WHERE status = 'pending') AS n`;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    if (Number((await client.query(busy)).rows[0]?.n) === 0) {
      // The sender's look at an empty queue after the last reply, and the threads let go.
      await new Promise((r) => setTimeout(r, 500));
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the messages were not all answered within 120 s");
}

/**
 * The thread locks of the previous burst let go (any database of the server): an instance keeps a
 * thread's advisory lock for a while after its turn (session-core DEFAULT_THREAD_HOLD_MS), and every
 * statement reading pg_locks (the turn ends' fences, the announcing accepts) reads all of them, so a
 * burst right after another side's paid for that side's held threads (hundreds after a burst).
 * Left: each instance's own role locks (a few).
 */
export async function locksLetGo(url: string): Promise<void> {
  const client = await probe(url);
  const held = "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory'";
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    if (Number((await client.query(held)).rows[0]?.n) < 50) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The server's WAL flushes so far (pg_stat_wal, every database; `track_wal_io_timing = on` for the
 * time), asked on the probe connection: a durable commit waits for one, and many commits share
 * one when they arrive together (group commit), so commits a flush and ms a flush say how the disk
 * set a burst's rate.
 */
export async function walFlushes(url: string): Promise<{ syncs: number; syncMs: number }> {
  const client = await probe(url);
  const row = (await client.query("SELECT wal_sync, wal_sync_time FROM pg_stat_wal")).rows[0];
  return { syncs: Number(row?.wal_sync ?? 0), syncMs: Number(row?.wal_sync_time ?? 0) };
}

export async function statementsPerMessage(url: string, secret: string, messages = 200): Promise<Counted> {
  const pg = createRequire(import.meta.resolve("@agentsvc/store-postgres"))("pg") as {
    Client: { prototype: { query: (...args: unknown[]) => unknown } };
  };
  const client = pg.Client.prototype;
  const original = client.query;
  const verbs = new Map<string, number>();
  // BENCH_DEBUG: the statements by text, most frequent first (stderr).
  const texts = new Map<string, number>();
  let counting = false;
  client.query = function (this: unknown, ...args: unknown[]) {
    if (counting && !probeClients.has(this as object)) {
      const config = args[0] as string | { text?: string };
      const text = typeof config === "string" ? config : (config?.text ?? "");
      const verb = text.trim().replace(/^\(/, "").split(/\s+/)[0]?.toLowerCase() ?? "?";
      verbs.set(verb, (verbs.get(verb) ?? 0) + 1);
      if (process.env.BENCH_DEBUG) texts.set(text, (texts.get(text) ?? 0) + 1);
    }
    return original.apply(this, args);
  };
  process.env.BENCH_PG_URL = url;
  process.env.BENCH_HOOKS_SECRET = secret;
  const loaded = await loadProject(resolve(import.meta.dirname, "../project-ingest-pg"));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const server = await startServer(loaded.project, { port: 0, logger: pino({ level: "silent" }) });
  try {
    await ingest(server.url, { amount: 50 }); // warm-up: connections opened, recovery done
    await drained(url);
    counting = true;
    await ingest(server.url, { amount: messages });
    await drained(url);
    counting = false;
  } finally {
    client.query = original;
    await server.shutdown();
  }
  for (const [text, n] of [...texts].sort((a, b) => b[1] - a[1]).slice(0, 20))
    console.error(`${(n / messages).toFixed(2)} a message: ${text.replace(/\s+/g, " ").slice(0, 160)}`);
  const total = [...verbs.values()].reduce((a, b) => a + b, 0);
  const byVerb = [...verbs.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([verb, n]) => `${verb} ${(n / messages).toFixed(1)}`)
    .join(", ");
  return { perMessage: total / messages, byVerb };
}
