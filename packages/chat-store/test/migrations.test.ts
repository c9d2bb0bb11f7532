import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { describe, expect, it, vi } from "vitest";
import { loadDriver } from "../src/driver.js";
import { ChatDb, ChatDbError, CURRENT_SCHEMA_VERSION, MIGRATIONS, type MigrationStep } from "../src/index.js";
import { runMigrations, stepChecksum } from "../src/migrations.js";
import { sqliteTables as schema } from "@agentsvc/store-schema/sqlite";
import { openStore, tempRoot } from "./helpers.js";

function tables(file: string): string[] {
  const raw = new Database(file, { readonly: true });
  try {
    return (
      raw
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all() as { name: string }[]
    ).map((r) => r.name);
  } finally {
    raw.close();
  }
}

function versionRows(file: string) {
  const raw = new Database(file, { readonly: true });
  try {
    return raw
      .prepare("SELECT version, name, checksum, applied_at FROM agentsvc_schema_version ORDER BY version")
      .all();
  } finally {
    raw.close();
  }
}

function expectChatDbError(fn: () => unknown, code: string, ...fragments: (string | RegExp)[]): ChatDbError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ChatDbError);
    const e = err as ChatDbError;
    expect(e.code).toBe(code);
    for (const f of fragments) expect(e.message).toMatch(f);
    return e;
  }
  throw new Error("expected a ChatDbError");
}

/** The first two real steps, then a third whose second statement fails after its first ran. */
const BROKEN_THIRD_STEP: MigrationStep[] = [
  ...MIGRATIONS.slice(0, 2),
  {
    version: 3,
    name: "broken step",
    sql: "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);",
  },
];

describe("schema: migrations", () => {
  it("a fresh store is migrated to the current version with every step recorded in agentsvc_schema_version", () => {
    const db = openStore();
    expect(db.schemaVersion()).toBe(CURRENT_SCHEMA_VERSION);
    expect(CURRENT_SCHEMA_VERSION).toBe(MIGRATIONS.length);
    expect(db.migration).toEqual({
      from: 0,
      to: CURRENT_SCHEMA_VERSION,
      applied: MIGRATIONS.map((m) => m.version),
    });
    const rows = versionRows(db.file) as { version: number; name: string }[];
    expect(rows.map((r) => [r.version, r.name])).toEqual(MIGRATIONS.map((m) => [m.version, m.name]));
  });

  it("version 1 creates exactly the conversations and preferences tables", () => {
    const root = tempRoot();
    const db = openStore({ appRoot: root, migrations: MIGRATIONS.slice(0, 1) });
    expect(db.schemaVersion()).toBe(1);
    expect(tables(db.file)).toEqual(["agentsvc_schema_version", "conversations", "preferences"]);
  });

  it("booting an up-to-date store is a no-op (no step re-applied, data and version rows untouched)", async () => {
    const root = tempRoot();
    const first = ChatDb.open({ appRoot: root });
    await first.conversations.create({ userId: "u1", title: "kept" });
    first.close();
    const before = versionRows(first.file);
    const again = openStore({ appRoot: root });
    expect(again.migration).toEqual({
      from: CURRENT_SCHEMA_VERSION,
      to: CURRENT_SCHEMA_VERSION,
      applied: [],
    });
    expect(versionRows(again.file)).toEqual(before);
    expect((await again.conversations.list("u1")).map((c) => c.title)).toEqual(["kept"]);
  });

  it("an up-to-date store opens while another connection holds the write lock (a restart takes no write lock)", () => {
    const root = tempRoot();
    const first = ChatDb.open({ appRoot: root });
    first.close();
    const writer = new Database(first.file);
    writer.exec("BEGIN IMMEDIATE");
    try {
      const again = openStore({ appRoot: root, busyTimeoutMs: 0 });
      expect(again.migration.applied).toEqual([]);
    } finally {
      writer.exec("ROLLBACK");
      writer.close();
    }
  });

  it("a store at version 1 upgrades step by step on a normal open and keeps its rows", async () => {
    const root = tempRoot();
    const v1 = ChatDb.open({ appRoot: root, migrations: MIGRATIONS.slice(0, 1) });
    await v1.conversations.recordTurn({
      userId: "alice",
      conversationId: "c1",
      userMessage: "hello from v1",
    });
    await v1.preferences.set("alice", "theme", "dark");
    v1.close();
    const logged: { fields: unknown; message: string }[] = [];
    const db = openStore({
      appRoot: root,
      logger: { info: (fields, message) => logged.push({ fields, message: String(message) }) },
    });
    expect(db.migration.from).toBe(1);
    // Every step after 1, whichever is the last (engineers add steps side by side).
    const upgraded = Array.from({ length: CURRENT_SCHEMA_VERSION - 1 }, (_, i) => i + 2);
    expect(db.migration.applied).toEqual(upgraded);
    // One line for the whole upgrade, not one per step.
    expect(logged).toEqual([
      {
        fields: expect.objectContaining({ from: 1, to: CURRENT_SCHEMA_VERSION, applied: upgraded }),
        message: `chat store migrated from schema version 1 to ${CURRENT_SCHEMA_VERSION} (${upgraded.length} steps)`,
      },
    ]);
    expect(db.schemaVersion()).toBe(CURRENT_SCHEMA_VERSION);
    expect(await db.conversations.get("c1")).toMatchObject({
      userId: "alice",
      title: "hello from v1",
      messageCount: 2,
    });
    expect(await db.preferences.get("alice", "theme")).toBe("dark");
  });

  it("a failed step on a store at some version fails loudly naming the file and the step, and leaves that version (and schema)", () => {
    const root = tempRoot();
    const file = join(root, "data", "chat.db");
    ChatDb.open({ appRoot: root, migrations: MIGRATIONS.slice(0, 1) }).close();
    expectChatDbError(
      () => ChatDb.open({ appRoot: root, migrations: BROKEN_THIRD_STEP }),
      "migration_failed",
      file,
      'step 3 ("broken step")',
      /no such table: no_such_table/,
      /stays at schema version 2/,
    );
    // Step 2, which worked, is kept: each step of an upgrade commits on its own.
    expect(tables(file)).not.toContain("half_done");
    expect((versionRows(file) as { version: number }[]).map((r) => r.version)).toEqual([1, 2]);
    // The real steps still apply afterwards.
    expect(openStore({ appRoot: root }).schemaVersion()).toBe(CURRENT_SCHEMA_VERSION);
  });

  it("a failed step on an empty store leaves version 0 and no tables (a first start is all or nothing)", () => {
    const root = tempRoot();
    const file = join(root, "data", "chat.db");
    expectChatDbError(
      () => ChatDb.open({ appRoot: root, migrations: BROKEN_THIRD_STEP }),
      "migration_failed",
      file,
      'step 3 ("broken step")',
      /no such table: no_such_table/,
      /stays at schema version 0/,
    );
    expect(tables(file)).toEqual(["agentsvc_schema_version"]);
    expect(versionRows(file)).toEqual([]);
    expect(openStore({ appRoot: root }).schemaVersion()).toBe(CURRENT_SCHEMA_VERSION);
  });

  it("a first start applies every step in one transaction (one commit and sync, not one per step)", () => {
    const file = join(tempRoot(), "first.db");
    const sqlite = new Database(file);
    try {
      const transactions = vi.spyOn(sqlite, "transaction");
      const report = runMigrations(sqlite, { file });
      expect(report.applied).toEqual(MIGRATIONS.map((m) => m.version));
      expect(transactions).toHaveBeenCalledTimes(1);
    } finally {
      sqlite.close();
    }
  });

  it("refuses a store written by a newer agentsvc (forward-only, never downgraded)", () => {
    const root = tempRoot();
    ChatDb.open({ appRoot: root }).close();
    const file = join(root, "data", "chat.db");
    const raw = new Database(file);
    raw.prepare("INSERT INTO agentsvc_schema_version VALUES (99, 'future', 'x', 0)").run();
    raw.close();
    expectChatDbError(() => ChatDb.open({ appRoot: root }), "schema_too_new", file, /version 99/);
  });

  it("refuses a store exactly one schema version newer (the usual rollback of a deploy)", () => {
    const root = tempRoot();
    ChatDb.open({ appRoot: root }).close();
    const file = join(root, "data", "chat.db");
    const raw = new Database(file);
    const next = CURRENT_SCHEMA_VERSION + 1;
    raw.prepare("INSERT INTO agentsvc_schema_version VALUES (?, 'next', 'x', 0)").run(next);
    raw.close();
    expectChatDbError(
      () => ChatDb.open({ appRoot: root }),
      "schema_too_new",
      file,
      new RegExp(`version ${next},`),
    );
  });

  it("refuses to open when a shipped step was edited after a store applied it", () => {
    const root = tempRoot();
    ChatDb.open({ appRoot: root }).close();
    const edited = MIGRATIONS.map((m) => (m.version === 2 ? { ...m, sql: `${m.sql}\n-- tweak` } : m));
    expectChatDbError(() => ChatDb.open({ appRoot: root, migrations: edited }), "migration_edited", /step 2/);
  });

  it("shipped steps are frozen: their SQL checksums never change", () => {
    // If this fails you edited a shipped migration. Revert it and append a new step instead.
    expect(MIGRATIONS.map(stepChecksum)).toEqual(FROZEN_CHECKSUMS);
  });

  it("drizzle table objects match the columns the migrations create", () => {
    const db = openStore();
    const raw = new Database(db.file, { readonly: true });
    try {
      for (const table of Object.values(schema)) {
        const config = getTableConfig(table);
        const actual = (raw.prepare(`PRAGMA table_info(${config.name})`).all() as { name: string }[])
          .map((c) => c.name)
          .sort();
        expect(actual, config.name).toEqual(config.columns.map((c) => c.name).sort());
      }
    } finally {
      raw.close();
    }
  });

  it("opens in WAL mode with the database file under the app root", async () => {
    const root = tempRoot();
    const db = openStore({ appRoot: root });
    expect(db.file).toBe(join(root, "data", "chat.db"));
    await db.preferences.set("u", "k", 1);
    expect(existsSync(`${db.file}-wal`)).toBe(true);
  });

  it("a missing SQLite driver fails loudly at open, naming the file", async () => {
    const root = tempRoot();
    const driver = loadDriver("better-sqlite3-not-installed");
    expect(driver.ok).toBe(false);
    expectChatDbError(
      () => ChatDb.open({ appRoot: root, driver }),
      "driver_missing",
      join(root, "data", "chat.db"),
      /better-sqlite3-not-installed/,
    );
  });

  it("a file that is not a SQLite database fails at open, naming the file", () => {
    const root = tempRoot();
    ChatDb.open({ appRoot: root, path: "x/chat.db" }).close();
    const file = join(root, "x", "bad.db");
    writeFileSync(file, "this is not a database, just text that is long enough to fill a header".repeat(20));
    expect(() => ChatDb.open({ appRoot: root, path: "x/bad.db" })).toThrow(file);
  });
});

describe("schema: path and datasource", () => {
  it("defaults to ./data/chat.db and creates nested directories for database.path", () => {
    const root = tempRoot();
    expect(openStore({ appRoot: root }).file).toBe(join(root, "data", "chat.db"));
    const nested = openStore({ appRoot: root, path: "state/deep/web.db" });
    expect(nested.file).toBe(join(root, "state", "deep", "web.db"));
    expect(existsSync(nested.file)).toBe(true);
  });

  it("rejects an absolute path and a '..' segment, naming the config file and key", () => {
    const root = tempRoot();
    expectChatDbError(
      () => ChatDb.open({ appRoot: root, path: "/var/chat.db", source: "gateways/web.yaml" }),
      "invalid_path",
      'gateways/web.yaml: database.path: must be relative to the app root (got "/var/chat.db")',
    );
    expectChatDbError(
      () => ChatDb.open({ appRoot: root, path: "data/../../x.db" }),
      "invalid_path",
      /".." segment/,
    );
  });

  it("accepts names that merely contain dots ('..hidden', 'a..b')", () => {
    const root = tempRoot();
    expect(openStore({ appRoot: root, path: "..hidden/a..b.db" }).file).toBe(
      join(root, "..hidden", "a..b.db"),
    );
  });

  it("uses the built-in agentsvc datasource by default and accepts a named sqlite datasource", () => {
    expect(openStore().datasource).toBe("agentsvc");
    const db = openStore({ datasource: "local", datasources: { local: { type: "sqlite" } } });
    expect(db.datasource).toBe("local");
  });

  it("rejects an unknown datasource, and a postgres one (opened with openPostgresChatDb), with a clear error", () => {
    const root = tempRoot();
    expectChatDbError(
      () => ChatDb.open({ appRoot: root, datasource: "nope", datasources: { main: { type: "sqlite" } } }),
      "invalid_datasource",
      /unknown datasource "nope" \(declared: agentsvc, main\)/,
    );
    expectChatDbError(
      () => ChatDb.open({ appRoot: root, datasource: "pg", datasources: { pg: { type: "postgres" } } }),
      "invalid_datasource",
      /datasource "pg" has type "postgres"; open it with openPostgresChatDb \(ChatDb.open is the SQLite store\)/,
    );
    expect(existsSync(join(root, "data"))).toBe(false);
  });
});

const FROZEN_CHECKSUMS: string[] = [
  "f4058153e5d53b6308c39313c96181047a79fcb732aefbd25aec3e7b92d62338",
  "2df115ba73f91194b53b595586c62d8be916e6b98f1c0192f1d28a54c34b6bc5",
  "056e8d0f5984bfe4fcbfaf99c7140cf4dd8c486a371c71a089d6f395b6a98144",
  "31f73c5dbafd5f06598bcc7b2de1fb8862563cce840835757b5b8c8304f4061a",
  "baed0ef737d30e1c8e4f818c048db81a0858bff798b0e32060461f5d0c02e345",
  "890e5d5b3be875a6c47924f13119e8ce7c635179ffa595691af9f2f7ef50461a",
  "64d56a24066d050060427a89412aa1f87bd93af5a1a7a74e36faee082aac1d87",
  "d9988a96547076419eccc937ccd639ec385ed7bb4c2e17388d6bcf58804f48bb",
  "acb82bba908dc2bdc7fd893ab7f4ead84ebada990239cadda40ceeb8e573974d",
  "d57eaf19416db6523b17d3abbcb3efc2cc053a72c1f1b43388b6c2bd45950444",
  "8f8d9b4dc1200e8937451a8e9f79d2234736d5480e372b8a23624739b79b22ee",
  "709a3522dcd4fa375f706b71eab0edd5482d9b363e3275b0dac136cdf3fa3c61",
  "8bc9c006bb5354ea07b6e8636319af2aae40609a5f8534ed8a1def70e44b5196",
  "850ef2a9e2245ea51173f691bbda900af776931174d0bef17461240cbb077cec",
  "19809a7020b24aa46e1c5ea35df57963e5acca0297d03423e5f9fc0eed162e18",
  "c1be681a589a994317710b7bdb6603a96c19571446fa9ffcd6165b6b9da1aef7",
  "b6b68b8226a51b9a14241a10fc90deb353c7d6d449784402fd3d5852d2026ea7",
  "3b6b5f9c978ef2049a8c46f36a153710f470dffc1febdccbe4e0f34e50cb73f5",
  "7016b424f2e6631411dfa5908205f986eaf94f17dcf01029dd2c4a5dcd966f3b",
  "5f7ee63ec5b6f5ff7d678ad1b6c7401238446554ce417499ee0697026936c484",
  "7d5fc85a1ec885c1d70bdcef39442536ec57198318714096582000c984e5e987",
  "9b1e3f53bed16045e7d3429fcb2906d0644a41fee7fbc2bbaf96d16f8f085c1f",
  "79d0f25130981766a7dbcae30fd61a117ca063f44c1057ebce81426901c3c770",
];
