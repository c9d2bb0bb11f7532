import { is } from "drizzle-orm";
import { getTableConfig as pgTableConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
// The drizzle objects of both dialects: query code written against the SQLite ones (chat-store's)
// runs on the PostgreSQL ones. test/dialects.test.ts compares the migrated databases themselves.
import { pgTables } from "../src/postgres.js";
import {
  BASELINE_VERSION,
  POSTGRES_MIGRATIONS as MIGRATIONS,
  POSTGRES_ONLY_INDEXES,
  SQLITE_ONLY_INDEXES,
} from "../src/postgres-migrations.js";
import * as chatSchema from "../src/sqlite.js";
import { SQLITE_MIGRATIONS } from "../src/sqlite-migrations.js";
import { CURRENT_SCHEMA_VERSION, stepChecksum } from "../src/steps.js";

const sqliteTables = Object.entries(chatSchema).filter(([, value]) => is(value, SQLiteTable)) as [
  string,
  SQLiteTable,
][];

type AnyColumn = {
  name: string;
  notNull: boolean;
  primary: boolean;
  hasDefault: boolean;
  default?: unknown;
  getSQLType(): string;
};

describe("schema: the pg tables mirror the SQLite ones", () => {
  it("pgTables has every table sqlite.ts exports, under the same export name", () => {
    expect(sqliteTables.length).toBeGreaterThan(0);
    expect(Object.keys(pgTables).sort()).toEqual(sqliteTables.map(([key]) => key).sort());
    for (const [key, table] of Object.entries(pgTables)) expect(is(table, PgTable), key).toBe(true);
  });

  it("every SQLite column exists with the same JS property name, SQL name, nullability and default", () => {
    for (const [key, sqlite] of sqliteTables) {
      const pg = pgTables[key as keyof typeof pgTables];
      const s = sqliteTableConfig(sqlite);
      const p = pgTableConfig(pg);
      expect(p.name, key).toBe(s.name);
      const sCols = Object.entries(sqlite) as [string, unknown][];
      const sqliteColumns = new Map(
        s.columns.map((c) => [sCols.find(([, v]) => v === c)?.[0] ?? "?", c as unknown as AnyColumn]),
      );
      const pgColumns = new Map(
        p.columns.map((c) => [
          (Object.entries(pg) as [string, unknown][]).find(([, v]) => v === c)?.[0] ?? "?",
          c as unknown as AnyColumn,
        ]),
      );
      expect([...pgColumns.keys()].sort(), `${key}: JS property names`).toEqual(
        [...sqliteColumns.keys()].sort(),
      );
      for (const [prop, sc] of sqliteColumns) {
        const pc = pgColumns.get(prop)!;
        const where = `${key}.${prop}`;
        expect(pc.name, `${where}: SQL name`).toBe(sc.name);
        expect(pc.notNull, `${where}: NOT NULL`).toBe(sc.notNull);
        expect(pc.primary, `${where}: primary key`).toBe(sc.primary);
        // SQLite's autoincrement ids have no declared default; ours are identity columns.
        const identity = (pc as { generatedIdentity?: unknown }).generatedIdentity !== undefined;
        expect(pc.hasDefault || identity, `${where}: has a default`).toBe(
          sc.hasDefault || (sc.primary && prop === "id"),
        );
        if (sc.default !== undefined) {
          // integer 0/1 booleans on SQLite are true/false here.
          expect(pc.default, `${where}: default`).toEqual(sc.default);
        }
        expect(pc.getSQLType(), `${where}: SQL type`).toBe(
          sc.getSQLType() === "text"
            ? "text"
            : sc.getSQLType() === "blob"
              ? "bytea"
              : sqliteBoolean(sc)
                ? "boolean"
                : "bigint",
        );
      }
    }
  });

  it("composite primary keys, unique constraints and indexes have the same columns and names", () => {
    const names = (cols: { name: string }[]) => cols.map((c) => c.name);
    for (const [key, sqlite] of sqliteTables) {
      const s = sqliteTableConfig(sqlite);
      const p = pgTableConfig(pgTables[key as keyof typeof pgTables]);
      expect(
        p.primaryKeys.map((k) => names(k.columns)),
        `${key}: composite keys`,
      ).toEqual(s.primaryKeys.map((k) => names(k.columns)));
      const uniques = (cfg: {
        uniqueConstraints: { columns: { name: string }[] }[];
        columns: { name: string; isUnique: boolean }[];
      }) =>
        [
          ...cfg.uniqueConstraints.map((u) => names(u.columns).join(",")),
          ...cfg.columns.filter((c) => c.isUnique).map((c) => c.name),
        ].sort();
      expect(uniques(p), `${key}: unique constraints`).toEqual(uniques(s));
      const indexes = (list: { config: { name?: string; columns: unknown[] } }[]) =>
        list
          .map(
            (i) =>
              `${i.config.name}(${(i.config.columns as { name: string }[]).map((c) => c.name).join(",")})`,
          )
          .sort();
      const both = (s.indexes as { config: { name?: string } }[]).filter(
        (i) => !SQLITE_ONLY_INDEXES.includes(i.config.name ?? ""),
      );
      const shared = (p.indexes as { config: { name?: string } }[]).filter(
        (i) => !POSTGRES_ONLY_INDEXES.includes(i.config.name ?? ""),
      );
      expect(indexes(shared as never), `${key}: indexes`).toEqual(indexes(both as never));
    }
  });
});

function sqliteBoolean(column: AnyColumn): boolean {
  return (column as { mode?: string }).mode === "boolean" || column.constructor.name === "SQLiteBoolean";
}

describe("schema: versions", () => {
  it("the PostgreSQL baseline step is SQLite's version 6, and both dialects end at CURRENT_SCHEMA_VERSION", () => {
    expect(MIGRATIONS[0]!.version).toBe(BASELINE_VERSION);
    expect(BASELINE_VERSION).toBe(6);
    // A new SQLite step needs its PostgreSQL twin (same number) before this passes again.
    expect(CURRENT_SCHEMA_VERSION).toBe(SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]!.version);
    expect(CURRENT_SCHEMA_VERSION).toBe(MIGRATIONS[MIGRATIONS.length - 1]!.version);
  });

  it("shipped PostgreSQL steps are frozen: their SQL checksums never change", () => {
    // If this fails you edited a shipped migration. Revert it and append a new step instead.
    expect(MIGRATIONS.map(stepChecksum)).toEqual(FROZEN_CHECKSUMS);
  });
});

// The baseline was changed once before any release (conversations.rowid for keyset paging).
const FROZEN_CHECKSUMS: string[] = [
  "d50a1240499ea2a7fe62086e38064d56953b270d42fffc428c115bba122699cc",
  "64d56a24066d050060427a89412aa1f87bd93af5a1a7a74e36faee082aac1d87",
  "3f91e09514d49f55566de740432c255a2debe00eecec846d80506e714d150f24",
  "7b2ba8292384e97f30388587e7b5edcdfda420880e3672867e7d3ac7445cf5f9",
  "58b24495df146dd71d9a3f7f1c567b0bc8b31dc37d8b2215e9239691e7ed1374",
  "4def0687664a974846720a31dd0926e02b437167841314265b862458a2f1ef6c",
  "da87ba3a512e52ca9ccfe51ccc972f15784e609a6f4c0be7a71d93e57060f57f",
  "e2e7df96f29dd44e0284b0811845fb1ffb136edae7c52c56f06b41f79828a2d5",
  "e5eadb6f3ba60aae72fb6522fd1666e0b635beb1577746e35a38b3043ae4c057",
  "b7c2ca06525ad3b6f4be3d07b348a085ba2da7b0547146ed88519c3be9a5e1c2",
  "68fdf10ab3fd2f7ff246436125d8eea516bc5675d7850a5582d541ede14e3ffd",
  "c76efc8491d907b2c9241e5b64e50076485fae80fe13f6e59abbff2ee4320862",
  "ab2401c9e1c81350643f04844362e38ffe71302a9eb3ff9bb0eb012075704202",
  "e50b4f5e8a644ee8dd44385b7dec0c5111f06fc6d7dfabe546dd9705c5a64576",
  "b5cdd77c6b66b782a341dc2e1eb4b02452ff03a5367f7ec4c4a56799f6f83ea1",
  "18a843d179819232bbab6eca99c8bfd20223350be006c1862a7029c3955c3015",
  "fa25cdde7883a9e5892f57998116c4f4bc1983d50e66ae5d52d042ec8ad1af7b",
  "499da23e3b8b299d012f9519a3f178eb581c184fa1a3d8d767b7102d0e8f6a4f",
];
