// A first start makes the schema in one script (fresh-schema.ts, #45): the store it leaves is the
// one the steps leave when run one by one, and it upgrades like that one.
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { FRESH_SCHEMA } from "../src/fresh-schema.js";
import { freshSchemaOf } from "../src/fresh-schema-of.js";
import { MIGRATIONS, type MigrationStep, runMigrations, SCHEMA_VERSION_TABLE } from "../src/migrations.js";
import { tempRoot } from "./helpers.js";

function openWal(file: string): Database.Database {
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  return sqlite;
}

/** Every schema object, every step's version row and every table's rows (bar the times steps ran). */
function contentsOf(sqlite: Database.Database) {
  const objects = sqlite
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
    .all() as { type: string; name: string }[];
  const rows = Object.fromEntries(
    objects
      .filter((o) => o.type === "table" && o.name !== SCHEMA_VERSION_TABLE)
      .map((o) => [o.name, sqlite.prepare(`SELECT * FROM "${o.name}"`).all()]),
  );
  const versions = sqlite
    .prepare(`SELECT version, name, checksum FROM ${SCHEMA_VERSION_TABLE} ORDER BY version`)
    .all();
  return { objects, rows, versions };
}

describe("the schema of a new store in one script", () => {
  it("is the one the steps make now (after adding a step: node packages/chat-store/scripts/write-fresh-schema.mjs)", () => {
    expect(FRESH_SCHEMA).toEqual(freshSchemaOf());
  });

  it("leaves the sqlite_master, version rows and tables of a store migrated step by step", () => {
    const root = tempRoot();
    const fresh = openWal(join(root, "fresh.db"));
    const stepped = openWal(join(root, "stepped.db"));
    const all = MIGRATIONS.map((s) => s.version);
    expect(runMigrations(fresh, { file: "fresh.db" })).toEqual({
      from: 0,
      to: MIGRATIONS.length,
      applied: all,
    });
    // A copy of the steps: not the array the script was made from, so each step runs.
    expect(runMigrations(stepped, { file: "stepped.db", steps: [...MIGRATIONS] })).toEqual({
      from: 0,
      to: MIGRATIONS.length,
      applied: all,
    });
    const made = contentsOf(fresh);
    expect(made.objects.length).toBeGreaterThan(40);
    expect(made.versions).toHaveLength(MIGRATIONS.length);
    expect(made).toEqual(contentsOf(stepped));
    fresh.close();
    stepped.close();
  });

  it("gives a store that takes a later step as a stepped one does, and reopens without writing", () => {
    const file = join(tempRoot(), "chat.db");
    const first = openWal(file);
    runMigrations(first, { file });
    first.close();
    const next: MigrationStep = {
      version: MIGRATIONS.length + 1,
      name: "a later step",
      sql: "ALTER TABLE outbox ADD COLUMN later TEXT; CREATE INDEX outbox_later ON outbox (later);",
    };
    const sqlite = openWal(file);
    expect(runMigrations(sqlite, { file, steps: [...MIGRATIONS, next] }).applied).toEqual([next.version]);
    expect(runMigrations(sqlite, { file, steps: [...MIGRATIONS, next] }).applied).toEqual([]);
    sqlite.close();
  });
});
