// A first start (an empty store) writes its schema without synced commits; every other write keeps
// the store's own synchronous setting (#45).
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ChatDb, type ChatDbOptions, MIGRATIONS, type MigrationStep } from "../src/index.js";
import { defaultDriver } from "../src/driver.js";
import { runMigrations } from "../src/migrations.js";
import { openStore, tempRoot } from "./helpers.js";

// synchronous: 0 = OFF, 2 = FULL.
const FULL = 2;
const OFF = 0;

/** The real steps, then one that records the synchronous level its transaction ran under. */
const recording = (version: number): MigrationStep => ({
  version,
  name: "record synchronous",
  sql: `CREATE TABLE seen_sync_${version} AS SELECT synchronous FROM pragma_synchronous;`,
});

function openWal(file: string): Database.Database {
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = FULL");
  return sqlite;
}

const seen = (sqlite: Database.Database, version: number) =>
  sqlite.prepare(`SELECT synchronous FROM seen_sync_${version}`).pluck().get();

describe("the synced commits of schema steps", () => {
  it("an empty store's steps commit with synchronous OFF, and the store's own level is back after", () => {
    const sqlite = openWal(join(tempRoot(), "chat.db"));
    const steps = [...MIGRATIONS.slice(0, 2), recording(3)];
    expect(runMigrations(sqlite, { file: "chat.db", steps }).applied).toEqual([1, 2, 3]);
    expect(seen(sqlite, 3)).toBe(OFF);
    expect(sqlite.pragma("synchronous", { simple: true })).toBe(FULL);
    sqlite.close();
  });

  it("a store at some version upgrades with its own level (FULL), each step synced", () => {
    const file = join(tempRoot(), "chat.db");
    const first = openWal(file);
    runMigrations(first, { file, steps: MIGRATIONS.slice(0, 2) });
    first.close();
    const sqlite = openWal(file);
    const steps = [...MIGRATIONS.slice(0, 2), recording(3)];
    expect(runMigrations(sqlite, { file, steps }).applied).toEqual([3]);
    expect(seen(sqlite, 3)).toBe(FULL);
    expect(sqlite.pragma("synchronous", { simple: true })).toBe(FULL);
    sqlite.close();
  });

  it("a failed first start puts the store's level back too", () => {
    const sqlite = openWal(join(tempRoot(), "chat.db"));
    const steps = [
      ...MIGRATIONS.slice(0, 2),
      { version: 3, name: "broken", sql: "INSERT INTO nowhere VALUES (1);" },
    ];
    expect(() => runMigrations(sqlite, { file: "chat.db", steps })).toThrow(/migration step 3/);
    expect(sqlite.pragma("synchronous", { simple: true })).toBe(FULL);
    sqlite.close();
  });
});

/** better-sqlite3 recording the synchronous level each `journal_mode = WAL` ran under. */
function recordingDriver(seenAtSwitch: number[]): ChatDbOptions["driver"] {
  const load = defaultDriver();
  if (!load.ok) throw new Error("better-sqlite3 is not loadable here");
  class Recording extends Database {
    override pragma(source: string, options?: Database.PragmaOptions): unknown {
      if (/^journal_mode = WAL$/i.test(source))
        seenAtSwitch.push(super.pragma("synchronous", { simple: true }) as number);
      return super.pragma(source, options);
    }
  }
  return { ok: true, driver: { ...load.driver, Database: Recording as typeof Database } };
}

describe("the switch to WAL at open", () => {
  it("a new store file switches to WAL unsynced (synchronous OFF) and opens migrated", () => {
    const seenAtSwitch: number[] = [];
    const db = openStore({ appRoot: tempRoot(), driver: recordingDriver(seenAtSwitch) });
    expect(seenAtSwitch).toEqual([OFF]);
    expect(db.schemaVersion()).toBe(MIGRATIONS.at(-1)?.version);
  });

  it("a store file with pages (here one set back to a rollback journal) switches to WAL with FULL", () => {
    const appRoot = tempRoot();
    ChatDb.open({ appRoot }).close();
    const file = join(appRoot, "data", "chat.db");
    const legacy = new Database(file);
    legacy.pragma("journal_mode = DELETE");
    legacy.close();
    const seenAtSwitch: number[] = [];
    const db = openStore({ appRoot, driver: recordingDriver(seenAtSwitch) });
    expect(seenAtSwitch).toEqual([FULL]);
    expect(db.schemaVersion()).toBe(MIGRATIONS.at(-1)?.version);
  });
});
