// Both dialects' migration steps, applied to a real SQLite file and a real PostgreSQL database,
// give the same tables, columns (name, nullability, primary key, type family) and indexes. A step
// appended to one dialect only, or a column typed differently, fails here.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  POSTGRES_MIGRATIONS,
  POSTGRES_ONLY_INDEXES,
  SQLITE_ONLY_INDEXES,
} from "../src/postgres-migrations.js";
import { SQLITE_MIGRATIONS } from "../src/sqlite-migrations.js";

interface Column {
  name: string;
  notNull: boolean;
  primaryKey: boolean;
  /** "text" or "integer": SQLite's INTEGER is PostgreSQL's BIGINT, or BOOLEAN for 0/1 flags. */
  family: string;
}

interface Shape {
  /** table -> its columns, sorted by name */
  columns: Record<string, Column[]>;
  /** `table.index(col,col)`, sorted; primary-key and unique-constraint indexes excluded */
  indexes: string[];
}

// PostgreSQL has no implicit rowid; conversations declares one for keyset paging (SQLite's is implicit).
const PG_ONLY = new Set(["conversations.rowid"]);

function sqliteShape(file: string): Shape {
  const db = new Database(file);
  try {
    for (const step of SQLITE_MIGRATIONS) db.exec(step.sql);
    const tables = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all() as {
        name: string;
      }[]
    ).map((t) => t.name);
    const columns: Shape["columns"] = {};
    const indexes: string[] = [];
    for (const table of tables) {
      const info = db.prepare(`PRAGMA table_info(${table})`).all() as {
        name: string;
        type: string;
        notnull: number;
        pk: number;
      }[];
      columns[table] = info
        .map((c) => ({
          name: c.name,
          notNull: c.notnull === 1 || c.pk > 0,
          primaryKey: c.pk > 0,
          family: c.type.toUpperCase() === "TEXT" ? "text" : "integer",
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const list = db.prepare(`PRAGMA index_list(${table})`).all() as { name: string; origin: string }[];
      for (const index of list.filter((i) => i.origin === "c")) {
        const cols = (db.prepare(`PRAGMA index_info(${index.name})`).all() as { name: string }[]).map(
          (c) => c.name,
        );
        indexes.push(`${table}.${index.name}(${cols.join(",")})`);
      }
    }
    return { columns, indexes: indexes.sort() };
  } finally {
    db.close();
  }
}

async function postgresShape(url: string): Promise<Shape> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const step of POSTGRES_MIGRATIONS) await client.query(step.sql);
    const cols = await client.query<{
      table_name: string;
      column_name: string;
      is_nullable: string;
      data_type: string;
    }>(
      `SELECT table_name, column_name, is_nullable, data_type FROM information_schema.columns
       WHERE table_schema = 'public'`,
    );
    const keys = await client.query<{ table_name: string; column_name: string }>(
      `SELECT k.table_name, k.column_name FROM information_schema.table_constraints c
       JOIN information_schema.key_column_usage k USING (constraint_schema, constraint_name)
       WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = 'public'`,
    );
    const pk = new Set(keys.rows.map((k) => `${k.table_name}.${k.column_name}`));
    const columns: Shape["columns"] = {};
    for (const c of cols.rows) {
      if (PG_ONLY.has(`${c.table_name}.${c.column_name}`)) continue;
      columns[c.table_name] ??= [];
      columns[c.table_name]!.push({
        name: c.column_name,
        notNull: c.is_nullable === "NO",
        primaryKey: pk.has(`${c.table_name}.${c.column_name}`),
        family: c.data_type === "text" ? "text" : "integer",
      });
    }
    for (const list of Object.values(columns)) list.sort((a, b) => a.name.localeCompare(b.name));
    // Indexes made by CREATE INDEX: not backing a primary key or unique constraint.
    const idx = await client.query<{ table: string; index: string; cols: string }>(
      `SELECT t.relname AS table, i.relname AS index,
              string_agg(a.attname, ',' ORDER BY array_position(x.indkey, a.attnum)) AS cols
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY (x.indkey)
       WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
       GROUP BY t.relname, i.relname`,
    );
    return { columns, indexes: idx.rows.map((r) => `${r.table}.${r.index}(${r.cols})`).sort() };
  } finally {
    await client.end();
  }
}

describe.skipIf(postgresMissing !== undefined)("schema: both dialects migrate to the same tables", () => {
  let server: TestPostgres | undefined;
  let sqlite: Shape;
  let postgres: Shape;

  beforeAll(async () => {
    server = await startPostgres();
    sqlite = sqliteShape(join(mkdtempSync(join(tmpdir(), "store-schema-")), "chat.db"));
    postgres = await postgresShape(await server.createDatabase());
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("the same tables", () => {
    expect(Object.keys(sqlite.columns).length).toBeGreaterThan(10);
    expect(Object.keys(postgres.columns).sort()).toEqual(Object.keys(sqlite.columns).sort());
  });

  it("each table has the same columns with the same nullability, primary key and type family", () => {
    for (const [table, columns] of Object.entries(sqlite.columns)) {
      expect(postgres.columns[table], table).toEqual(columns);
    }
  });

  it("the same indexes on the same columns, but those PostgreSQL dropped or replaced (SQLITE_ONLY_INDEXES, POSTGRES_ONLY_INDEXES)", () => {
    expect(sqlite.indexes.length).toBeGreaterThan(0);
    const named = (index: string) => index.slice(index.indexOf(".") + 1, index.indexOf("("));
    const sqliteOnly = sqlite.indexes.filter((i) => SQLITE_ONLY_INDEXES.includes(named(i)));
    expect(sqliteOnly.map(named).sort()).toEqual([...SQLITE_ONLY_INDEXES].sort());
    const postgresOnly = postgres.indexes.filter((i) => POSTGRES_ONLY_INDEXES.includes(named(i)));
    expect(postgresOnly.map(named).sort()).toEqual([...POSTGRES_ONLY_INDEXES].sort());
    expect(postgres.indexes.filter((i) => !postgresOnly.includes(i))).toEqual(
      sqlite.indexes.filter((i) => !sqliteOnly.includes(i)),
    );
  });
});
