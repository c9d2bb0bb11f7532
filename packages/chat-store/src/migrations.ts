// Forward-only schema steps. A shipped step is never edited (SQLite cannot alter or drop a column
// cleanly, and existing stores already ran it): a change is a NEW step appended to MIGRATIONS.
// Each applied step is recorded with a checksum of its SQL; a mismatch at boot means someone
// edited a shipped step, and the store refuses to open rather than drift silently.
import { createHash } from "node:crypto";
import type { SqliteConnection } from "./driver.js";
import { ChatDbError, describeError } from "./errors.js";

export interface MigrationStep {
  version: number;
  name: string;
  sql: string;
}

export const SCHEMA_VERSION_TABLE = "agentsvc_schema_version";

export const MIGRATIONS: readonly MigrationStep[] = [
  {
    version: 1,
    name: "conversations and preferences",
    sql: `
CREATE TABLE conversations (
  conversation_id TEXT PRIMARY KEY NOT NULL,
  user_id TEXT NOT NULL,
  title TEXT,
  message_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX conversations_user_updated ON conversations (user_id, updated_at);
CREATE TABLE preferences (
  user_id TEXT NOT NULL,
  pref_key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, pref_key)
);
`,
  },
  {
    version: 2,
    name: "accounts, sessions and sign-in throttling",
    sql: `
CREATE TABLE accounts (
  username TEXT PRIMARY KEY NOT NULL,
  display_name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deactivated_at INTEGER
);
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY NOT NULL,
  user_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE TABLE login_throttle (
  throttle_key TEXT PRIMARY KEY NOT NULL,
  failures INTEGER NOT NULL,
  window_start INTEGER NOT NULL,
  locked_until INTEGER
);
`,
  },
  {
    version: 3,
    name: "agent memory messages",
    sql: `
CREATE TABLE memory_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  role TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX memory_messages_scope ON memory_messages (user_id, conversation_id, id);
`,
  },
  {
    version: 4,
    name: "suspended runs",
    sql: `
CREATE TABLE suspended_runs (
  thread_id TEXT PRIMARY KEY NOT NULL,
  user_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  agent_name TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX suspended_runs_conversation ON suspended_runs (user_id, conversation_id);
`,
  },
  {
    version: 5,
    name: "gateway inbox and interaction requests",
    sql: `
CREATE TABLE inbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  gateway TEXT NOT NULL,
  dedup_key TEXT NOT NULL,
  thread TEXT NOT NULL,
  text TEXT NOT NULL,
  origin TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'rejected', 'failed')),
  received_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  UNIQUE (gateway, dedup_key)
);
CREATE INDEX inbox_thread_status ON inbox (gateway, thread, status, id);
CREATE INDEX inbox_status ON inbox (status, id);
CREATE TABLE interactions (
  request_id TEXT PRIMARY KEY NOT NULL,
  thread_id TEXT NOT NULL,
  gateway TEXT NOT NULL,
  thread TEXT NOT NULL,
  allowed_decisions TEXT NOT NULL,
  prompt TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  decision TEXT,
  resolved_at INTEGER
);
CREATE INDEX interactions_thread_open ON interactions (gateway, thread, status, created_at);
`,
  },
  {
    version: 6,
    name: "gateway outbox, per-gateway state, seen tokens, interaction expiry",
    sql: `
CREATE TABLE outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  gateway TEXT NOT NULL,
  thread TEXT NOT NULL,
  idem_key TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('text', 'approval', 'decided')),
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  platform_id TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX outbox_pending ON outbox (status, next_attempt_at, id);
CREATE INDEX outbox_thread ON outbox (gateway, thread, id);
CREATE TABLE gateway_state (
  gateway TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (gateway, key)
);
CREATE TABLE seen_tokens (
  scope TEXT NOT NULL,
  token TEXT NOT NULL,
  value TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (scope, token)
);
CREATE INDEX seen_tokens_expiry ON seen_tokens (expires_at);
ALTER TABLE interactions ADD COLUMN expires_at INTEGER;
ALTER TABLE interactions ADD COLUMN participant TEXT;
`,
  },
];

/** The version a store is at after open(). Bump together with a new step at the end of MIGRATIONS. */
export const CURRENT_SCHEMA_VERSION = 6;

export function stepChecksum(step: MigrationStep): string {
  return createHash("sha256").update(step.sql).digest("hex");
}

export interface MigrationReport {
  from: number;
  to: number;
  applied: number[];
}

interface VersionRow {
  version: number;
  name: string;
  checksum: string;
}

function ensureVersionTable(sqlite: SqliteConnection): void {
  sqlite.exec(`CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (
  version INTEGER PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at INTEGER NOT NULL
)`);
}

export function readSchemaVersion(sqlite: SqliteConnection): number {
  const row = sqlite.prepare(`SELECT MAX(version) AS v FROM ${SCHEMA_VERSION_TABLE}`).get() as {
    v: number | null;
  };
  return row.v ?? 0;
}

function checkSteps(steps: readonly MigrationStep[]): void {
  steps.forEach((step, i) => {
    if (step.version !== i + 1) {
      throw new Error(
        `migration steps must be numbered 1..n in order (step ${i} has version ${step.version})`,
      );
    }
  });
}

/**
 * Applies every step newer than the store, each in its own IMMEDIATE transaction together with its
 * version row, so a failed step leaves the store exactly at the previous version.
 */
export function runMigrations(
  sqlite: SqliteConnection,
  options: { file: string; steps?: readonly MigrationStep[]; now?: () => number },
): MigrationReport {
  const steps = options.steps ?? MIGRATIONS;
  const now = options.now ?? Date.now;
  checkSteps(steps);
  const file = options.file;
  try {
    ensureVersionTable(sqlite);
  } catch (err) {
    throw new ChatDbError("open_failed", `${file}: cannot read the schema version: ${describeError(err)}`, {
      cause: err,
    });
  }
  const from = readSchemaVersion(sqlite);
  if (from > steps.length) {
    throw new ChatDbError(
      "schema_too_new",
      `${file}: the store is at schema version ${from}, newer than this agentsvc understands (${steps.length}); ` +
        `upgrade agentsvc (the store is forward-only and is never downgraded)`,
    );
  }
  const recorded = sqlite
    .prepare(`SELECT version, name, checksum FROM ${SCHEMA_VERSION_TABLE} ORDER BY version`)
    .all() as VersionRow[];
  for (const row of recorded) {
    const step = steps[row.version - 1];
    if (step && stepChecksum(step) !== row.checksum) {
      throw new ChatDbError(
        "migration_edited",
        `${file}: migration step ${row.version} ("${step.name}") differs from the one this store applied; ` +
          `shipped steps must never be edited — restore it and add a new step instead`,
      );
    }
  }
  const applied: number[] = [];
  const record = sqlite.prepare(
    `INSERT INTO ${SCHEMA_VERSION_TABLE} (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`,
  );
  for (const step of steps) {
    const apply = sqlite.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      if (readSchemaVersion(sqlite) >= step.version) return false;
      sqlite.exec(step.sql);
      record.run(step.version, step.name, stepChecksum(step), now());
      return true;
    });
    try {
      if (apply.immediate()) applied.push(step.version);
    } catch (err) {
      const at = readSchemaVersion(sqlite);
      throw new ChatDbError(
        "migration_failed",
        `${file}: migration step ${step.version} ("${step.name}") failed: ${describeError(err)}; ` +
          `the store stays at schema version ${at}`,
        { cause: err },
      );
    }
  }
  return { from, to: readSchemaVersion(sqlite), applied };
}
