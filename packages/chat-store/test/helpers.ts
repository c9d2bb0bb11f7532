import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresMissing, startPostgres, type TestPostgres, usePostgres } from "@agentsvc/pg-test";
import { afterAll, afterEach, describe, inject } from "vitest";
import { ChatDb, type ChatDbOptions, openPostgresChatDb } from "../src/index.js";

const dirs: string[] = [];
const open: ChatDb[] = [];

afterEach(async () => {
  for (const db of open.splice(0)) {
    db.close();
    await db.closedSettled;
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// The project's PostgreSQL server (pg-server.global.ts), or one of the file's own started on first
// use (a run without the globalSetup, or a file that called ownPostgresServer()); one database per
// app root, each dropped after the file.
let server: Promise<TestPostgres> | undefined;
let own = false;
let templateShared = false;
const databases = new Map<string, Promise<string>>();
afterAll(async () => {
  const s = await server;
  const made = await Promise.allSettled([
    ...databases.values(),
    ...(migrated && !templateShared ? [migrated] : []),
  ]);
  databases.clear();
  server = undefined;
  migrated = undefined;
  templateShared = false;
  if (!s) return;
  // A shared server outlives the file: its databases must not pile up in the temp folder.
  const names = made.flatMap((r) => (r.status === "fulfilled" ? [r.value.split("/").pop() ?? ""] : []));
  await s.dropDatabases(names);
  await s.stop();
});

/**
 * This file's tests read state of the whole server (e.g. every session in pg_stat_activity), which
 * other files' databases on a shared server would change: they get a server of their own.
 */
export function ownPostgresServer(): void {
  own = true;
}

function postgresServer(): Promise<TestPostgres> {
  const shared = own ? null : inject("chatStorePostgres");
  if (!shared) return startPostgres();
  migrated = Promise.resolve(shared.template); // the globalSetup's, not this file's to drop
  templateShared = true;
  return Promise.resolve(usePostgres(shared));
}

/** What a behaviour test opens stores with; the same test runs once per database. */
export interface StoreDriver {
  name: "sqlite" | "postgres";
  /** Why this driver cannot run here (its tests are skipped), or undefined. */
  missing: string | undefined;
  /** A store; the same `appRoot` twice is the same data (a second instance or a restart). */
  open(options?: Partial<ChatDbOptions> & { appRoot?: string }): Promise<ChatDb>;
}

export const sqliteDriver: StoreDriver = {
  name: "sqlite",
  missing: undefined,
  open: async (options = {}) => openStore(options),
};

/**
 * A database of the file's server migrated to the current schema, which every test's database is a
 * copy of (`CREATE DATABASE ... TEMPLATE`): running every schema step per test was most of a test.
 */
let migrated: Promise<string> | undefined;
async function migratedTemplate(s: TestPostgres): Promise<string> {
  const name = `migrated_${process.pid}`;
  const url = await s.createDatabase(name);
  const db = await openPostgres(url, tempRoot(), {});
  db.close();
  await db.closedSettled; // a template must have no connections
  return name;
}

function openPostgres(url: string, appRoot: string, options: Partial<ChatDbOptions>): Promise<ChatDb> {
  return openPostgresChatDb({
    name: "main",
    datasource: { type: "postgres", urlEnvVar: "CHAT_STORE_TEST_URL", pool: 4 },
    appRoot,
    env: { CHAT_STORE_TEST_URL: url },
    ...(options.now ? { now: options.now } : {}),
    ...(options.throttle ? { throttle: options.throttle } : {}),
    ...(options.blobs ? { blobs: options.blobs } : {}),
    ...(options.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: options.sessionTimeoutMs } : {}),
  });
}

export const postgresDriver: StoreDriver = {
  name: "postgres",
  missing: postgresMissing,
  async open(options = {}) {
    const appRoot = options.appRoot ?? tempRoot();
    let url = databases.get(appRoot);
    if (!url) {
      server ??= postgresServer();
      url = server.then(async (s) => {
        migrated ??= migratedTemplate(s);
        return s.createDatabase(undefined, { template: await migrated });
      });
      databases.set(appRoot, url);
    }
    const db = await openPostgres(await url, appRoot, options);
    open.push(db);
    return db;
  },
};

/** The PostgreSQL database behind `appRoot`'s stores (opened by `postgresDriver.open`). */
export async function postgresUrlOf(appRoot: string): Promise<string> {
  const url = databases.get(appRoot);
  if (!url) throw new Error(`no PostgreSQL database was opened for ${appRoot}`);
  return url;
}

/** Runs `suite` once per database: the store behaves the same on SQLite and on PostgreSQL. */
export function eachDriver(suite: (driver: StoreDriver) => void): void {
  for (const driver of [sqliteDriver, postgresDriver]) {
    describe.skipIf(driver.missing)(`[${driver.name}]`, () => suite(driver));
  }
}

/** A fresh app root in the OS temp dir, removed after the test. */
export function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "chat-store-"));
  dirs.push(dir);
  return dir;
}

/** A manual clock in ms. */
export function clock(start = Date.UTC(2025, 0, 1)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
    set(ms: number) {
      now = ms;
    },
  };
}

/** Opens a store (closed after the test). */
export function openStore(options: Partial<ChatDbOptions> & { appRoot?: string } = {}): ChatDb {
  const db = ChatDb.open({ appRoot: options.appRoot ?? tempRoot(), ...options });
  open.push(db);
  return db;
}
