// One PostgreSQL server for the project's files (vitest globalSetup), with one database migrated to
// the current schema, instead of a server and a migration per file (start, every schema step, stop:
// for some 20 files). Each file makes its databases as copies of that one and drops them after
// (helpers.ts); a file that reads server-wide state (pg_stat_activity of every database) keeps a
// server of its own (`ownPostgresServer()`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PostgresAddress, postgresMissing, startPostgres } from "@agentsvc/pg-test";
import type { TestProject } from "vitest/node";
import { openPostgresChatDb } from "../src/index.js";

declare module "vitest" {
  export interface ProvidedContext {
    chatStorePostgres: (PostgresAddress & { template: string }) | null;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (postgresMissing) {
    project.provide("chatStorePostgres", null);
    return async () => {};
  }
  // Files side by side each hold pools of up to 4 connections per store, several stores a test.
  const server = await startPostgres({ maxConnections: 400 });
  const appRoot = mkdtempSync(join(tmpdir(), "chat-store-template-"));
  try {
    const template = "migrated";
    const db = await openPostgresChatDb({
      name: "main",
      datasource: { type: "postgres", urlEnvVar: "URL", pool: 1 },
      appRoot,
      env: { URL: await server.createDatabase(template) },
    });
    db.close();
    await db.closedSettled; // a template must have no connections
    project.provide("chatStorePostgres", { port: server.port, dataDir: server.dataDir, template });
  } catch (err) {
    await server.stop();
    throw err;
  } finally {
    rmSync(appRoot, { recursive: true, force: true });
  }
  return () => server.stop();
}
