// Every statement the store sends to PostgreSQL, one entry per round trip: node-postgres answers a
// query only after the server's ReadyForQuery, so a client sends one statement at a time. The
// wrapper is installed on the `pg` module @agentsvc/store-postgres loads (the same instance its
// pools use), so BEGIN, SAVEPOINT and COMMIT are counted with the statements between them.
import { createRequire } from "node:module";
import type { ChatDb } from "../src/index.js";
import { postgresDriver, postgresUrlOf, tempRoot } from "./helpers.js";

/** The part of node-postgres the tests use (chat-store does not depend on pg or its types). */
export interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: "notification", listener: (n: { channel: string; payload?: string }) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
}
interface Pg {
  Client: { new (config: { connectionString: string }): PgClient; prototype: object };
}

export interface Statement {
  text: string;
  values: unknown[];
}

/** node-postgres as @agentsvc/store-postgres resolves it. */
export function storePg(): Pg {
  const storePostgres = createRequire(import.meta.url).resolve("@agentsvc/store-postgres");
  return createRequire(storePostgres)("pg") as Pg;
}

/**
 * A PostgreSQL store in a fresh database and a connection of the test's own to it: a row that
 * connection reads has been committed. The connection is closed once `work` has settled.
 */
export async function withOwnConnection(
  work: (db: ChatDb, client: PgClient) => Promise<void>,
): Promise<void> {
  const appRoot = tempRoot();
  const db = await postgresDriver.open({ appRoot });
  const client = new (storePg().Client)({ connectionString: await postgresUrlOf(appRoot) });
  await client.connect();
  try {
    await work(db, client);
  } finally {
    await client.end();
  }
}

// A connection the pool opens during the work first sends its set-up (store-postgres connect.ts:
// plan_cache_mode): the pool's statement, once a connection, not the work's.
const connectionSetUp = /^SET plan_cache_mode\b/i;

/** Records the statements sent while `work` runs (every connection of this process). */
export async function statementsOf(work: () => Promise<unknown>): Promise<Statement[]> {
  const client = storePg().Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = client.query;
  const seen: Statement[] = [];
  client.query = function (this: unknown, ...args: unknown[]) {
    const [config, values] = args;
    if (typeof config === "string" && connectionSetUp.test(config)) return original.apply(this, args);
    if (typeof config === "string") seen.push({ text: config, values: Array.isArray(values) ? values : [] });
    else if (config && typeof config === "object" && "text" in config) {
      const q = config as { text: string; values?: unknown[] };
      seen.push({ text: q.text, values: q.values ?? (Array.isArray(values) ? values : []) });
    }
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    client.query = original;
  }
  return seen;
}
