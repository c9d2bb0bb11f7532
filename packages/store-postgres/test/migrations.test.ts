import { postgresMissing } from "@agentsvc/pg-test";
import { getTableConfig } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { connectPostgres } from "../src/connect.js";
import {
  CURRENT_SCHEMA_VERSION,
  MIGRATION_LOCK_KEY,
  MIGRATIONS,
  type MigrationStep,
  SCHEMA_VERSION_TABLE,
  stepChecksum,
} from "../src/migrations.js";
import { eq } from "drizzle-orm";
import { Client as PgClient } from "pg";
import { pgTables } from "@agentsvc/store-schema/postgres";
import { connect, expectStoreError, query, usePostgres } from "./helpers.js";

/**
 * Columns in the SQL that the drizzle tables leave out: chat-store orders conversation pages by
 * SQLite's implicit `rowid`, so PostgreSQL has a real one, never selected as a record field.
 */
const HIDDEN_COLUMNS = ["conversations.rowid"];

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: "YES" | "NO";
  column_default: string | null;
  is_identity: "YES" | "NO";
}

async function publicTables(url: string): Promise<string[]> {
  const rows = await query<{ table_name: string }>(
    url,
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
  );
  return rows.map((r) => r.table_name);
}

async function versionRows(url: string) {
  return query<{ version: number; name: string; checksum: string; applied_at: string }>(
    url,
    `SELECT version, name, checksum, applied_at FROM ${SCHEMA_VERSION_TABLE} ORDER BY version`,
  );
}

/** What a fresh database applies: every step (the first one creates the tables as of its version). */
const ALL_STEPS = MIGRATIONS.map((m) => m.version);

describe.skipIf(postgresMissing)("migrations on a real PostgreSQL", () => {
  const pg = usePostgres();

  it("a fresh database is migrated to the current version with the step recorded in agentsvc_schema_version", async () => {
    const url = await pg.server().createDatabase();
    const store = await connect({ connectionString: url, now: () => 1_700_000_000_000 });
    expect(store.migration).toEqual({
      from: 0,
      to: CURRENT_SCHEMA_VERSION,
      applied: ALL_STEPS,
    });
    expect(await store.schemaVersion()).toBe(CURRENT_SCHEMA_VERSION);
    expect(await versionRows(url)).toEqual(
      MIGRATIONS.map((m) => ({
        version: m.version,
        name: m.name,
        checksum: stepChecksum(m),
        applied_at: "1700000000000",
      })),
    );
    expect(await publicTables(url)).toEqual(
      [SCHEMA_VERSION_TABLE, ...Object.values(pgTables).map((t) => getTableConfig(t).name)].sort(),
    );
  });

  it("conversations has a hidden rowid (identity) that chat-store's keyset paging orders by, as on SQLite", async () => {
    const url = await pg.server().createDatabase();
    await connect({ connectionString: url });
    const rows = await query<ColumnRow>(
      url,
      `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity
         FROM information_schema.columns WHERE table_name = 'conversations' AND column_name = 'rowid'`,
    );
    expect(rows).toMatchObject([{ data_type: "bigint", is_nullable: "NO", is_identity: "YES" }]);
  });

  it("the drizzle tables match the migration SQL: columns, types, nullability, defaults, keys and indexes", async () => {
    const url = await pg.server().createDatabase();
    await connect({ connectionString: url });
    const columns = await query<ColumnRow>(
      url,
      `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> $1`,
      [SCHEMA_VERSION_TABLE],
    );
    const constraints = await query<{ table_name: string; type: string; name: string; columns: string[] }>(
      url,
      `SELECT c.conrelid::regclass::text AS table_name, c.contype AS type, c.conname AS name,
              array_agg(a.attname::text ORDER BY k.ord) AS columns
         FROM pg_constraint c
         JOIN unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord) ON true
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
        WHERE c.connamespace = 'public'::regnamespace AND c.contype IN ('p', 'u')
        GROUP BY c.conrelid, c.contype, c.conname`,
    );
    const indexes = await query<{ table_name: string; name: string; def: string }>(
      url,
      `SELECT tablename AS table_name, indexname AS name, indexdef AS def FROM pg_indexes
        WHERE schemaname = 'public' AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    );
    for (const table of Object.values(pgTables)) {
      const config = getTableConfig(table);
      const actual = columns.filter(
        (c) => c.table_name === config.name && !HIDDEN_COLUMNS.includes(`${c.table_name}.${c.column_name}`),
      );
      expect(actual.map((c) => c.column_name).sort(), config.name).toEqual(
        config.columns.map((c) => c.name).sort(),
      );
      for (const column of config.columns) {
        const row = actual.find((c) => c.column_name === column.name)!;
        const where = `${config.name}.${column.name}`;
        expect(row.data_type, where).toBe(column.getSQLType());
        expect(row.is_nullable === "NO", `${where} NOT NULL`).toBe(column.notNull);
        const identity = (column as { generatedIdentity?: unknown }).generatedIdentity !== undefined;
        expect(row.is_identity === "YES", `${where} identity`).toBe(identity);
        expect(row.column_default !== null, `${where} default`).toBe(column.default !== undefined);
        if (column.default !== undefined) {
          expect(row.column_default?.replace(/::\w+$/, "").replace(/^'(.*)'$/, "$1"), where).toBe(
            String(column.default),
          );
        }
      }
      const primary = constraints.filter((c) => c.table_name === config.name && c.type === "p");
      const expectedPk = config.primaryKeys.length
        ? config.primaryKeys.map((k) => k.columns.map((c) => c.name))
        : [config.columns.filter((c) => c.primary).map((c) => c.name)];
      expect(
        primary.map((c) => c.columns),
        `${config.name} primary key`,
      ).toEqual(expectedPk);
      const unique = constraints
        .filter((c) => c.table_name === config.name && c.type === "u")
        .map((c) => `${c.name}(${c.columns.join(",")})`)
        .sort();
      const expectedUnique = [
        ...config.uniqueConstraints.map((u) => `${u.name}(${u.columns.map((c) => c.name).join(",")})`),
        ...config.columns.filter((c) => c.isUnique).map((c) => `${c.uniqueName}(${c.name})`),
      ].sort();
      expect(unique, `${config.name} unique constraints`).toEqual(expectedUnique);
      const actualIndexes = indexes
        .filter((i) => i.table_name === config.name)
        // A partial index's predicate is marked (its text is PostgreSQL's rendering, not drizzle's);
        // storage parameters (`WITH (...)`, step 22's BRIN ranges) are not compared.
        .map((i) => {
          const [columns, where] = i.def.replace(/ WITH \([^)]*\)/, "").split(" WHERE ");
          return `${i.name}(${/\((.*)\)$/.exec(columns ?? "")?.[1]?.replace(/ /g, "")})${where ? " partial" : ""}`;
        })
        .sort();
      const expectedIndexes = config.indexes
        .map(
          (i) =>
            `${i.config.name}(${(i.config.columns as { name: string }[]).map((c) => c.name).join(",")})${i.config.where ? " partial" : ""}`,
        )
        .sort();
      expect(actualIndexes, `${config.name} indexes`).toEqual(expectedIndexes);
    }
  });

  it("reconnecting to an up-to-date database applies nothing and leaves the version rows alone", async () => {
    const url = await pg.server().createDatabase();
    const first = await connect({ connectionString: url });
    await first.db
      .insert(pgTables.preferences)
      .values({ userId: "u", prefKey: "k", value: "1", updatedAt: 1 });
    await first.close();
    const before = await versionRows(url);
    const again = await connect({ connectionString: url });
    expect(again.migration).toEqual({
      from: CURRENT_SCHEMA_VERSION,
      to: CURRENT_SCHEMA_VERSION,
      applied: [],
    });
    expect(await versionRows(url)).toEqual(before);
    expect(await again.db.select().from(pgTables.preferences)).toEqual([
      { userId: "u", prefKey: "k", value: "1", updatedAt: 1 },
    ]);
  });

  it("three instances connecting at once to one database migrate exactly once; each report says whether it applied", async () => {
    const url = await pg.server().createDatabase();
    // A slow extra step keeps the first instance inside its migration while the others arrive.
    const slow: MigrationStep = {
      version: CURRENT_SCHEMA_VERSION + 1,
      name: "slow step",
      sql: "SELECT pg_sleep(0.5); CREATE TABLE slow_marker (x INTEGER);",
    };
    const steps = [...MIGRATIONS, slow];
    const stores = await Promise.all(
      [1, 2, 3].map(() => connectPostgres({ connectionString: url, migrations: steps, max: 2 })),
    );
    try {
      const reports = stores.map((s) => s.migration);
      const appliers = reports.filter((r) => r.applied.length > 0);
      expect(appliers).toEqual([
        { from: 0, to: slow.version, applied: [...MIGRATIONS.map((m) => m.version), slow.version] },
      ]);
      expect(reports.filter((r) => r.applied.length === 0)).toEqual([
        { from: slow.version, to: slow.version, applied: [] },
        { from: slow.version, to: slow.version, applied: [] },
      ]);
      expect((await versionRows(url)).map((r) => r.version)).toEqual(steps.map((s) => s.version));
      for (const s of stores) expect(await s.schemaVersion()).toBe(slow.version);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("an instance waits while another holds the migration lock, and goes on when the holder's session dies", async () => {
    const url = await pg.server().createDatabase();
    const holder = new PgClient({ connectionString: url, application_name: "lock-holder" });
    await holder.connect();
    holder.on("error", () => undefined);
    await holder.query("BEGIN");
    await holder.query("SELECT pg_advisory_xact_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
    let settled = false;
    const waiting = connectPostgres({ connectionString: url }).finally(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(settled).toBe(false);
    await query(
      url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'lock-holder'",
    );
    const store = await waiting;
    try {
      expect(store.migration.applied).toEqual(ALL_STEPS);
    } finally {
      await store.close();
      await holder.end().catch(() => undefined);
    }
  });

  it("the wait for the lock is bounded by migrationTimeoutMs, with an error that says where to look", async () => {
    const url = await pg.server().createDatabase();
    const holder = new PgClient({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
      const start = performance.now();
      await expectStoreError(
        connectPostgres({ connectionString: url, migrationTimeoutMs: 300, datasource: "main" }),
        "migration_failed",
        /datasource "main" .*: waited 300 ms for the migration lock without getting it/,
        /canceling statement due to (lock|statement) timeout/,
        /pg_locks/,
      );
      expect(performance.now() - start).toBeLessThan(3_000);
      await holder.query("ROLLBACK");
    } finally {
      await holder.end();
    }
  });

  it("refuses to connect when a recorded checksum differs from the shipped step (tampered record or edited step)", async () => {
    const url = await pg.server().createDatabase();
    await (await connect({ connectionString: url })).close();
    await query(url, `UPDATE ${SCHEMA_VERSION_TABLE} SET checksum = 'tampered' WHERE version = $1`, [
      MIGRATIONS[0]!.version,
    ]);
    await expectStoreError(
      connectPostgres({ connectionString: url, datasource: "main" }),
      "migration_edited",
      /datasource "main"/,
      new RegExp(`step ${MIGRATIONS[0]!.version} `),
      /must never be edited/,
    );
    await query(url, `UPDATE ${SCHEMA_VERSION_TABLE} SET checksum = $1 WHERE version = $2`, [
      stepChecksum(MIGRATIONS[0]!),
      MIGRATIONS[0]!.version,
    ]);
    const edited = MIGRATIONS.map((m) => ({ ...m, sql: `${m.sql}\n-- tweak` }));
    await expectStoreError(
      connectPostgres({ connectionString: url, migrations: edited }),
      "migration_edited",
    );
    // The refusal changed nothing: the real steps still connect.
    expect((await connect({ connectionString: url })).migration.applied).toEqual([]);
  });

  it("refuses a database written by a newer agentsvc (forward-only, never downgraded)", async () => {
    const url = await pg.server().createDatabase();
    await (await connect({ connectionString: url })).close();
    await query(url, `INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (99, 'future', 'x', 0)`);
    await expectStoreError(
      connectPostgres({ connectionString: url }),
      "schema_too_new",
      /version 99/,
      /upgrade agentsvc/,
    );
  });

  it("refuses a database exactly one schema version newer (the usual rollback of a deploy)", async () => {
    const url = await pg.server().createDatabase();
    await (await connect({ connectionString: url })).close();
    const next = CURRENT_SCHEMA_VERSION + 1;
    await query(url, `INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (${next}, 'next', 'x', 0)`);
    await expectStoreError(
      connectPostgres({ connectionString: url }),
      "schema_too_new",
      new RegExp(`version ${next},`),
    );
  });

  it("a failed step rolls the whole migration back and names the step; the real steps apply afterwards", async () => {
    const url = await pg.server().createDatabase();
    const broken: MigrationStep[] = [
      ...MIGRATIONS,
      {
        version: CURRENT_SCHEMA_VERSION + 1,
        name: "broken step",
        sql: "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);",
      },
    ];
    await expectStoreError(
      connectPostgres({ connectionString: url, migrations: broken }),
      "migration_failed",
      new RegExp(`step ${CURRENT_SCHEMA_VERSION + 1} \\("broken step"\\)`),
      /relation "no_such_table" does not exist/,
      /stays at schema version 0/,
    );
    expect(await publicTables(url)).toEqual([]);
    expect((await connect({ connectionString: url })).migration.applied).toEqual(ALL_STEPS);
  });

  it("drizzle over the pool reads bigint timestamps and identity ids as numbers and booleans as booleans", async () => {
    const url = await pg.server().createDatabase();
    const { db, tables } = await connect({ connectionString: url });
    const now = Date.UTC(2030, 0, 1);
    await db.insert(tables.accounts).values({
      username: "ann",
      displayName: "Ann",
      passwordHash: "h",
      createdAt: now,
      updatedAt: now,
    });
    const [ids] = await db
      .insert(tables.memoryMessages)
      .values({ userId: "ann", conversationId: "c", role: "user", body: "{}", createdAt: now })
      .returning({ id: tables.memoryMessages.id });
    expect(ids).toEqual({ id: 1 });
    const [account] = await db.select().from(tables.accounts).where(eq(tables.accounts.username, "ann"));
    expect(account).toMatchObject({ active: true, createdAt: now, deactivatedAt: null });
    await expect(
      db.insert(tables.inbox).values({
        gateway: "g",
        dedupKey: "d",
        thread: "t",
        text: "x",
        origin: "{}",
        status: "bogus" as never,
        receivedAt: now,
      }),
    ).rejects.toThrow();
  });
});
