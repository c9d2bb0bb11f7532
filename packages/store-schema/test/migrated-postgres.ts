// The set-up the PostgreSQL step tests share: a throwaway server for their describe block, fresh
// databases on it migrated through a given step, rows to fill them, and what their indexes hold.
import { startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { POSTGRES_MIGRATIONS } from "../src/postgres-migrations.js";

/** A client on a fresh database migrated through step `upTo`, which the caller ends. */
export interface MigratedDatabases {
  (upTo: number): Promise<pg.Client>;
  /** Runs `use` on a client on a fresh database migrated through step `upTo`, then ends the client. */
  using<T>(upTo: number, use: (client: pg.Client) => Promise<T>): Promise<T>;
}

/**
 * Starts a server before the calling describe block's tests and stops it after them (called inside
 * the block, so a block skipped for want of PostgreSQL starts none). Returns `migrated(upTo)` and
 * `migrated.using(upTo, use)`.
 */
export function migratedDatabases(): MigratedDatabases {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  const migrated = async (upTo: number) => {
    if (!server) throw new Error("migratedDatabases: the server has not started (call it inside describe)");
    const client = new pg.Client({ connectionString: await server.createDatabase() });
    await client.connect();
    try {
      for (const step of POSTGRES_MIGRATIONS.filter((s) => s.version <= upTo)) await client.query(step.sql);
    } catch (err) {
      await client.end();
      throw err;
    }
    return client;
  };
  const using = async <T>(upTo: number, use: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = await migrated(upTo);
    try {
      return await use(client);
    } finally {
      await client.end();
    }
  };
  return Object.assign(migrated, { using });
}

/**
 * `n` inbox records in `status` and as many outbox pieces in `piece`, their keys tagged `tag` and
 * spread over 50 threads (`<tag>0` to `<tag>49`).
 */
export async function inboxAndOutboxRows(
  client: pg.Client,
  n: number,
  tag: string,
  status: string,
  piece: string,
): Promise<void> {
  await client.query(
    `INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at)
     SELECT 'g', '${tag}' || i, '${tag}' || (i % 50), 'x', '{}', '${status}', i FROM generate_series(1, ${n}) i`,
  );
  await client.query(
    `INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, next_attempt_at, created_at)
     SELECT 'g', '${tag}' || (i % 50), '${tag}' || i, 'text', '{}', '${piece}', i, i FROM generate_series(1, ${n}) i`,
  );
}

/**
 * A store with records and pieces in every status: 2,000 done records and sent pieces (threads
 * old0-old49), 300 queued records and pending pieces (q0-q49), 200 running records and dead pieces
 * (r0-r49): 500 unfinished records, 500 pending or dead pieces.
 */
async function rowsInEveryStatus(client: pg.Client): Promise<void> {
  await inboxAndOutboxRows(client, 2_000, "old", "done", "sent");
  await inboxAndOutboxRows(client, 300, "q", "queued", "pending");
  await inboxAndOutboxRows(client, 200, "r", "running", "dead");
}

/** The indexes `where` picks from pg_indexes, each name to its definition from its method on. */
export async function indexDefinitions(
  client: pg.Client,
  where: string,
  params: unknown[] = [],
): Promise<Record<string, string>> {
  const { rows } = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE ${where} ORDER BY indexname`,
    params,
  );
  return Object.fromEntries(rows.map((d) => [d.indexname, d.indexdef.replace(/^.* USING /, "")]));
}

/** Each named index's size in pages: what an entry written in it shows as, never a time. */
export async function indexPages(
  client: pg.Client,
  names: readonly string[],
): Promise<Record<string, number>> {
  const { rows } = await client.query<{ name: string; pages: string }>(
    `SELECT relname AS name, pg_relation_size(oid) / current_setting('block_size')::int AS pages
     FROM pg_class WHERE relname = ANY($1)`,
    [names],
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.pages)]));
}

/** One read's rows before a step and after it, and its plan after it. */
export interface ReadAcrossStep {
  read: string;
  before: unknown[];
  after: unknown[];
  plan: string;
}

/**
 * Fills the store on `client` with rows in every status (rowsInEveryStatus), runs each read, applies
 * step `version`, and runs each again with its plan. Sequential
 * scans are off for the plans: the planner would rather seq-scan tables this small, so a plan that
 * can read by an index must.
 */
export async function readsAcrossStep(
  client: pg.Client,
  version: number,
  reads: readonly string[],
): Promise<ReadAcrossStep[]> {
  const step = POSTGRES_MIGRATIONS.find((s) => s.version === version);
  if (!step) throw new Error(`readsAcrossStep: no PostgreSQL step ${version}`);
  await rowsInEveryStatus(client);
  const before: unknown[][] = [];
  for (const read of reads) before.push((await client.query(read)).rows);
  await client.query(step.sql);
  await client.query("SET enable_seqscan = off");
  const across: ReadAcrossStep[] = [];
  for (const [i, read] of reads.entries()) {
    const after = (await client.query(read)).rows;
    const plan = (await client.query(`EXPLAIN ${read}`)).rows.map((r) => r["QUERY PLAN"]).join("\n");
    across.push({ read, before: before[i] ?? [], after, plan });
  }
  return across;
}
