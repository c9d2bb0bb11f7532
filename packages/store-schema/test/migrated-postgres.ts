// The set-up the PostgreSQL step tests share: a throwaway server for their describe block, and fresh
// databases on it migrated through a given step.
import { startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { POSTGRES_MIGRATIONS } from "../src/postgres-migrations.js";

/**
 * Starts a server before the calling describe block's tests and stops it after them (called inside
 * the block, so a block skipped for want of PostgreSQL starts none). Returns `migrated(upTo)`: a
 * client on a fresh database migrated through step `upTo`, which the caller ends.
 */
export function migratedDatabases(): (upTo: number) => Promise<pg.Client> {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return async (upTo) => {
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
}
