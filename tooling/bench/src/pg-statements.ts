// Statements per gateway message on PostgreSQL: the ingest project served in this process, every
// statement its pooled and cluster connections send counted by a wrapper on the pg Client (one
// statement = one round trip: node-postgres sends the next only after the answer), over a burst
// of signed events on fresh threads until every one is done and its reply sent. The bare durable
// handler sends one statement per event.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { postgresBinDir } from "@agentsvc/pg-test";
import { loadProject } from "@agentsvc/config-schema";
import { startServer } from "@agentsvc/server";
import pino from "pino";
import { ingest } from "./ingest.ts";

interface Counted {
  perMessage: number;
  byVerb: string;
}

/** Every inbox record finished and every reply sent; asked through psql (not counted). */
export async function drained(url: string): Promise<void> {
  const psql = join(postgresBinDir() as string, "psql");
  const busy = `SELECT (SELECT count(*) FROM inbox WHERE status IN ('queued', 'running'))
    + (SELECT count(*) FROM outbox WHERE status = 'pending')`;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    if (execFileSync(psql, [url, "-Atc", busy]).toString().trim() === "0") {
      // The sender's look at an empty queue after the last reply, and the threads let go.
      await new Promise((r) => setTimeout(r, 500));
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the messages were not all answered within 120 s");
}

export async function statementsPerMessage(url: string, secret: string, messages = 200): Promise<Counted> {
  const pg = createRequire(import.meta.resolve("@agentsvc/store-postgres"))("pg") as {
    Client: { prototype: { query: (...args: unknown[]) => unknown } };
  };
  const client = pg.Client.prototype;
  const original = client.query;
  const verbs = new Map<string, number>();
  let counting = false;
  client.query = function (this: unknown, ...args: unknown[]) {
    if (counting) {
      const config = args[0] as string | { text?: string };
      const text = typeof config === "string" ? config : (config?.text ?? "");
      const verb = text.trim().replace(/^\(/, "").split(/\s+/)[0]?.toLowerCase() ?? "?";
      verbs.set(verb, (verbs.get(verb) ?? 0) + 1);
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
  const total = [...verbs.values()].reduce((a, b) => a + b, 0);
  const byVerb = [...verbs.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([verb, n]) => `${verb} ${(n / messages).toFixed(1)}`)
    .join(", ");
  return { perMessage: total / messages, byVerb };
}
