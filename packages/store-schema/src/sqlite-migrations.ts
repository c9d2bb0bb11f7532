// SQLite's forward-only schema steps (chat-store runs them). A shipped step is never edited (SQLite
// cannot alter or drop a column cleanly, and existing stores already ran it): a change is a NEW step
// appended here, its PostgreSQL twin appended to postgres-migrations.ts under the same number, and
// an edit of the table objects in sqlite.ts and postgres.ts.
import type { MigrationStep } from "./steps.js";

export const SQLITE_MIGRATIONS: readonly MigrationStep[] = [
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
  {
    version: 7,
    name: "trace context (W3C traceparent) on outbox rows",
    sql: `
ALTER TABLE outbox ADD COLUMN traceparent TEXT;
`,
  },
  {
    version: 8,
    name: "sender access: pairing codes, approved senders, rate-limit windows",
    sql: `
CREATE TABLE sender_pairings (
  code TEXT PRIMARY KEY,
  gateway TEXT NOT NULL,
  sender TEXT NOT NULL,
  thread TEXT NOT NULL,
  display_name TEXT,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX sender_pairings_sender ON sender_pairings (gateway, sender);
CREATE TABLE sender_approvals (
  gateway TEXT NOT NULL,
  sender TEXT NOT NULL,
  approved_at INTEGER NOT NULL,
  code TEXT,
  PRIMARY KEY (gateway, sender)
);
CREATE TABLE rate_windows (
  key TEXT PRIMARY KEY,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL
);
`,
  },
  {
    version: 9,
    name: "cost ledger: one row per model call",
    sql: `
CREATE TABLE usage_ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  gateway TEXT,
  agent TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  kind TEXT NOT NULL,
  outcome TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL,
  cost_nanos INTEGER NOT NULL
);
CREATE INDEX usage_ledger_at ON usage_ledger (at);
CREATE INDEX usage_ledger_user ON usage_ledger (user_id, at);
CREATE INDEX usage_ledger_gateway ON usage_ledger (gateway, at);
CREATE INDEX usage_ledger_agent ON usage_ledger (agent, at);
`,
  },
  {
    version: 10,
    name: "schedules: one row per claimed tick, and the operator's pause per schedule",
    sql: `
CREATE TABLE schedule_ticks (
  schedule TEXT NOT NULL,
  tick_at INTEGER NOT NULL,
  claimed_at INTEGER NOT NULL,
  instance TEXT NOT NULL,
  manual INTEGER NOT NULL,
  inbox_id INTEGER,
  outcome TEXT NOT NULL,
  error TEXT,
  finished_at INTEGER,
  PRIMARY KEY (schedule, tick_at)
);
CREATE INDEX schedule_ticks_open ON schedule_ticks (outcome);
CREATE TABLE schedule_state (
  schedule TEXT PRIMARY KEY,
  paused INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
`,
  },
  {
    version: 11,
    name: "media: content-addressed blobs in chunks, downloads by platform file, transcripts, inbox attachment refs, file outbox pieces",
    sql: `
CREATE TABLE blobs (
  sha256 TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  chunks INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  used_at INTEGER NOT NULL
);
CREATE INDEX blobs_used ON blobs (used_at);
CREATE TABLE blob_chunks (
  sha256 TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (sha256, seq)
);
CREATE TABLE media_downloads (
  gateway TEXT NOT NULL,
  source_key TEXT NOT NULL,
  sha256 TEXT,
  refused TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (gateway, source_key)
);
CREATE TABLE blob_transcripts (
  sha256 TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  text TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
ALTER TABLE inbox ADD COLUMN attachments TEXT;
CREATE TABLE outbox_v11 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  gateway TEXT NOT NULL,
  thread TEXT NOT NULL,
  idem_key TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('text', 'approval', 'decided', 'file')),
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  platform_id TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER,
  traceparent TEXT
);
INSERT INTO outbox_v11 (id, gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, last_error, platform_id, created_at, finished_at, traceparent)
  SELECT id, gateway, thread, idem_key, kind, payload, status, attempts, next_attempt_at, last_error, platform_id, created_at, finished_at, traceparent FROM outbox;
DELETE FROM sqlite_sequence WHERE name = 'outbox_v11';
INSERT INTO sqlite_sequence (name, seq) SELECT 'outbox_v11', seq FROM sqlite_sequence WHERE name = 'outbox';
DROP TABLE outbox;
ALTER TABLE outbox_v11 RENAME TO outbox;
CREATE INDEX outbox_pending ON outbox (status, next_attempt_at, id);
CREATE INDEX outbox_thread ON outbox (gateway, thread, id);
`,
  },
  {
    version: 12,
    name: "reminders: one row per reminder a user set from a conversation (the remind tool)",
    sql: `
CREATE TABLE reminders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  gateway TEXT NOT NULL,
  thread TEXT NOT NULL,
  user_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  text TEXT NOT NULL,
  at INTEGER,
  cron TEXT,
  timezone TEXT NOT NULL,
  meta TEXT,
  created_at INTEGER NOT NULL,
  ended_at INTEGER,
  ended TEXT
);
CREATE INDEX reminders_user ON reminders (gateway, user_id, ended_at);
CREATE INDEX reminders_active ON reminders (ended_at);
`,
  },
  {
    version: 13,
    name: "outbox thread heads: the oldest pending piece of each thread, kept by triggers",
    sql: `
CREATE INDEX outbox_thread_pending ON outbox (gateway, thread, id) WHERE status = 'pending';
CREATE TABLE outbox_heads (
  gateway TEXT NOT NULL,
  thread TEXT NOT NULL,
  head_id INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  PRIMARY KEY (gateway, thread)
);
CREATE INDEX outbox_heads_head ON outbox_heads (head_id);
CREATE INDEX outbox_heads_due ON outbox_heads (next_attempt_at);
INSERT INTO outbox_heads (gateway, thread, head_id, next_attempt_at)
  SELECT gateway, thread, min(id), next_attempt_at FROM outbox WHERE status = 'pending' GROUP BY gateway, thread;
CREATE TRIGGER outbox_heads_insert AFTER INSERT ON outbox WHEN NEW.status = 'pending' BEGIN
  DELETE FROM outbox_heads WHERE gateway = NEW.gateway AND thread = NEW.thread;
  INSERT INTO outbox_heads (gateway, thread, head_id, next_attempt_at)
    SELECT gateway, thread, id, next_attempt_at FROM outbox
    WHERE gateway = NEW.gateway AND thread = NEW.thread AND status = 'pending' ORDER BY id LIMIT 1;
END;
CREATE TRIGGER outbox_heads_update AFTER UPDATE OF status, next_attempt_at ON outbox
WHEN OLD.status = 'pending' OR NEW.status = 'pending' BEGIN
  DELETE FROM outbox_heads WHERE gateway = NEW.gateway AND thread = NEW.thread;
  INSERT INTO outbox_heads (gateway, thread, head_id, next_attempt_at)
    SELECT gateway, thread, id, next_attempt_at FROM outbox
    WHERE gateway = NEW.gateway AND thread = NEW.thread AND status = 'pending' ORDER BY id LIMIT 1;
END;
CREATE TRIGGER outbox_heads_delete AFTER DELETE ON outbox WHEN OLD.status = 'pending' BEGIN
  DELETE FROM outbox_heads WHERE gateway = OLD.gateway AND thread = OLD.thread;
  INSERT INTO outbox_heads (gateway, thread, head_id, next_attempt_at)
    SELECT gateway, thread, id, next_attempt_at FROM outbox
    WHERE gateway = OLD.gateway AND thread = OLD.thread AND status = 'pending' ORDER BY id LIMIT 1;
END;
`,
  },
  {
    version: 14,
    name: "partial status indexes: inbox's on unfinished records, outbox_pending on pending and dead pieces",
    // PostgreSQL only: there a record's status change writes a new entry in every index, and a
    // finished one no longer does in these. SQLite keeps its full indexes (same names and columns):
    // its planner takes a partial index only for a query whose terms match the predicate's.
    sql: `
-- PostgreSQL only (partial status indexes); SQLite keeps its full ones.
`,
  },
  {
    version: 15,
    name: "outbox heads triggers: their statements by key, whatever the statistics say",
    // PostgreSQL only (the PL/pgSQL functions' plans); SQLite's triggers are SQL, planned per run.
    sql: `
-- PostgreSQL only (the heads functions' planner settings).
`,
  },
  {
    version: 16,
    name: "cost ledger: the input tokens each call wrote to the provider's prompt cache",
    // Rows recorded before it wrote none the ledger knows of: 0.
    sql: `
ALTER TABLE usage_ledger ADD COLUMN cache_write_input_tokens INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 17,
    name: "fewer index entries a message: inbox_status dropped, outbox_pending on dead pieces only",
    // PostgreSQL only: SQLite keeps inbox_status and its full outbox_pending (SQLITE_ONLY_INDEXES,
    // postgres-migrations.ts); its planner takes a partial index only for a query matching its predicate.
    sql: `
-- PostgreSQL only (fewer index entries a message); SQLite keeps its indexes.
`,
  },
  {
    version: 18,
    name: "outbox heads triggers: their plans cached whatever the session's plan_cache_mode",
    // PostgreSQL only: a setting of its trigger functions (postgres-migrations.ts).
    sql: `
-- PostgreSQL only (the outbox heads functions' plan_cache_mode); nothing changes on SQLite.
`,
  },
  {
    version: 19,
    name: "HOT running marks on inbox (inbox_thread_open, fillfactor), usage_ledger_at as BRIN",
    // PostgreSQL only: HOT updates, fillfactor and BRIN are its own; SQLite keeps inbox_thread_status
    // and the ledger's btree indexes (SQLITE_ONLY_INDEXES, postgres-migrations.ts).
    sql: `
-- PostgreSQL only (inbox's HOT running marks, the ledger's BRIN index); nothing changes on SQLite.
`,
  },
  {
    version: 20,
    name: "outbox heads trigger function: its calls' plans cached whatever the session's plan_cache_mode",
    // PostgreSQL only: a plpgsql function's plan cache setting; SQLite's triggers are SQL.
    sql: `
-- PostgreSQL only (the heads trigger function's plan_cache_mode); nothing changes on SQLite.
`,
  },
  {
    version: 21,
    name: "inbox accepts that announce: one function, its statement planned once per connection",
    // PostgreSQL only: a plpgsql function for the accept that announces to another instance; SQLite
    // accepts with its own statement (chat-store sqlite-writes.ts) and announces nothing.
    sql: `
-- PostgreSQL only (the announcing inbox accept as a function); nothing changes on SQLite.
`,
  },
  {
    version: 22,
    name: "usage_ledger_at: BRIN of 16 pages a range, summarized as ranges fill (autosummarize)",
    // PostgreSQL only: SQLite's usage_ledger_at is a btree, which a read since a cutoff searches
    // from it; there is no BRIN index to summarize.
    sql: `
-- PostgreSQL only (usage_ledger_at's BRIN ranges); nothing changes on SQLite.
`,
  },
  {
    version: 23,
    name: "inbox accepts that announce: rows found by position, the record in the caller's payload",
    // PostgreSQL only: the announcing accept's plpgsql function; SQLite announces nothing.
    sql: `
-- PostgreSQL only (the announcing inbox accept's leaner function); nothing changes on SQLite.
`,
  },
];
