// PostgreSQL's drizzle table objects, mirroring sqlite.ts table for table with the SAME JS property
// names and the same SQL table, column and index names, so chat-store's query code, written against
// the SQLite objects, runs unchanged on these. They mirror the SQL of postgres-migrations.ts, the
// source of truth here; changing a table means a new step in both migration files AND an edit here
// and in sqlite.ts (test/dialects.test.ts holds them together).
//
// Types: millisecond timestamps and integer counters are `bigint` read as JS numbers (ms since the
// epoch outgrow int4; every value stays below 2^53); autoincrement ids are bigint identity columns,
// also read as numbers; `accounts.active` is a real boolean; JSON payloads stay `text` (the query
// code does JSON.stringify/parse itself, as on SQLite).
import {
  bigint,
  boolean,
  customType,
  index,
  pgTable,
  primaryKey,
  text,
  unique,
  sql,
} from "./postgres-orm.js";
import type { SqliteTables } from "./sqlite.js";

export type InboxStatus = "queued" | "running" | "done" | "rejected" | "failed";
export type OutboxKind = "text" | "approval" | "decided" | "file";
export type OutboxStatus = "pending" | "sent" | "dead";

const ms = (name: string) => bigint(name, { mode: "number" });
const autoId = (name: string) => bigint(name, { mode: "number" }).primaryKey().generatedByDefaultAsIdentity();

export const conversations = pgTable(
  "conversations",
  {
    conversationId: text("conversation_id").primaryKey().notNull(),
    userId: text("user_id").notNull(),
    title: text("title"),
    messageCount: bigint("message_count", { mode: "number" }).notNull().default(0),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("conversations_user_updated").on(t.userId, t.updatedAt)],
);

export const preferences = pgTable(
  "preferences",
  {
    userId: text("user_id").notNull(),
    prefKey: text("pref_key").notNull(),
    value: text("value").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.prefKey] })],
);

export const accounts = pgTable("accounts", {
  username: text("username").primaryKey().notNull(),
  displayName: text("display_name").notNull(),
  passwordHash: text("password_hash").notNull(),
  active: boolean("active").notNull().default(true),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
  deactivatedAt: ms("deactivated_at"),
});

export const sessions = pgTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey().notNull(),
    userId: text("user_id").notNull(),
    createdAt: ms("created_at").notNull(),
    lastSeenAt: ms("last_seen_at").notNull(),
  },
  (t) => [index("sessions_user").on(t.userId)],
);

export const loginThrottle = pgTable("login_throttle", {
  throttleKey: text("throttle_key").primaryKey().notNull(),
  failures: bigint("failures", { mode: "number" }).notNull(),
  windowStart: ms("window_start").notNull(),
  lockedUntil: ms("locked_until"),
});

export const memoryMessages = pgTable(
  "memory_messages",
  {
    id: autoId("id"),
    userId: text("user_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    role: text("role").notNull(),
    body: text("body").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("memory_messages_scope").on(t.userId, t.conversationId, t.id)],
);

export const suspendedRuns = pgTable(
  "suspended_runs",
  {
    threadId: text("thread_id").primaryKey().notNull(),
    userId: text("user_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    agentName: text("agent_name").notNull(),
    state: text("state").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("suspended_runs_conversation").on(t.userId, t.conversationId)],
);

/**
 * The predicate of inbox's index of unfinished records on PostgreSQL (step 19; status in step 14):
 * the end sets finished_at, the running mark does not, so the running mark is a HOT update.
 */
const UNFINISHED = sql`finished_at IS NULL`;

export const inbox = pgTable(
  "inbox",
  {
    id: autoId("id"),
    gateway: text("gateway").notNull(),
    dedupKey: text("dedup_key").notNull(),
    thread: text("thread").notNull(),
    text: text("text").notNull(),
    origin: text("origin").notNull(),
    status: text("status").$type<InboxStatus>().notNull(),
    receivedAt: ms("received_at").notNull(),
    startedAt: ms("started_at"),
    finishedAt: ms("finished_at"),
    /** JSON list of the message's attachment refs (blob ids, or why one was refused); null without any. */
    attachments: text("attachments"),
  },
  (t) => [
    unique("inbox_gateway_dedup_key_unique").on(t.gateway, t.dedupKey),
    // Unfinished records only (step 19, by status in step 14): neither a running mark nor an end
    // writes an entry in it (#45.2). The reads by status alone walk it too: PostgreSQL has no
    // inbox_status (step 17) nor inbox_thread_status (step 19), SQLite keeps both.
    index("inbox_thread_open").on(t.gateway, t.thread, t.id).where(UNFINISHED),
  ],
);

export const interactions = pgTable(
  "interactions",
  {
    requestId: text("request_id").primaryKey().notNull(),
    threadId: text("thread_id").notNull(),
    gateway: text("gateway").notNull(),
    thread: text("thread").notNull(),
    allowedDecisions: text("allowed_decisions").notNull(),
    prompt: text("prompt").notNull(),
    createdAt: ms("created_at").notNull(),
    status: text("status").$type<"open" | "resolved">().notNull().default("open"),
    decision: text("decision"),
    resolvedAt: ms("resolved_at"),
    expiresAt: ms("expires_at"),
    participant: text("participant"),
  },
  (t) => [index("interactions_thread_open").on(t.gateway, t.thread, t.status, t.createdAt)],
);

export const outbox = pgTable(
  "outbox",
  {
    id: autoId("id"),
    gateway: text("gateway").notNull(),
    thread: text("thread").notNull(),
    idemKey: text("idem_key").notNull().unique("outbox_idem_key_unique"),
    kind: text("kind").$type<OutboxKind>().notNull(),
    payload: text("payload").notNull(),
    status: text("status").$type<OutboxStatus>().notNull(),
    attempts: bigint("attempts", { mode: "number" }).notNull().default(0),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    lastError: text("last_error"),
    platformId: text("platform_id"),
    createdAt: ms("created_at").notNull(),
    finishedAt: ms("finished_at"),
    /** W3C `traceparent` of the turn that wrote the piece: its send continues that trace. */
    traceparent: text("traceparent"),
  },
  (t) => [
    // Dead pieces only (step 17; pending and dead in step 14): neither an enqueue nor a sent mark
    // writes an entry in it. Reads of pending pieces take outbox_thread_pending.
    index("outbox_pending").on(t.status, t.nextAttemptAt, t.id).where(sql`status = 'dead'`),
    index("outbox_thread").on(t.gateway, t.thread, t.id),
    // Each thread's pending pieces in order (step 13).
    index("outbox_thread_pending").on(t.gateway, t.thread, t.id).where(sql`status = 'pending'`),
  ],
);

/**
 * The oldest pending piece of each (gateway, thread) with pending pieces, kept by triggers on
 * `outbox` (step 13), so "which replies are due" reads one row a thread, not every pending row.
 */
export const outboxHeads = pgTable(
  "outbox_heads",
  {
    gateway: text("gateway").notNull(),
    thread: text("thread").notNull(),
    headId: bigint("head_id", { mode: "number" }).notNull(),
    nextAttemptAt: ms("next_attempt_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.gateway, t.thread] }),
    index("outbox_heads_head").on(t.headId),
    index("outbox_heads_due").on(t.nextAttemptAt),
  ],
);

export const gatewayState = pgTable(
  "gateway_state",
  {
    gateway: text("gateway").notNull(),
    key: text("key").notNull(),
    value: text("value").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.gateway, t.key] })],
);

export const seenTokens = pgTable(
  "seen_tokens",
  {
    scope: text("scope").notNull(),
    token: text("token").notNull(),
    value: text("value").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.token] }), index("seen_tokens_expiry").on(t.expiresAt)],
);

/** Pairing codes handed to unknown direct-message senders (`dmPolicy: pairing`). */
export const senderPairings = pgTable(
  "sender_pairings",
  {
    code: text("code").primaryKey(),
    gateway: text("gateway").notNull(),
    sender: text("sender").notNull(),
    thread: text("thread").notNull(),
    displayName: text("display_name"),
    status: text("status").$type<"pending" | "approved" | "denied">().notNull(),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [index("sender_pairings_sender").on(t.gateway, t.sender)],
);

/** Senders the owner approved (`agentsvc pairing approve`), per gateway entry. */
export const senderApprovals = pgTable(
  "sender_approvals",
  {
    gateway: text("gateway").notNull(),
    sender: text("sender").notNull(),
    approvedAt: ms("approved_at").notNull(),
    code: text("code"),
  },
  (t) => [primaryKey({ columns: [t.gateway, t.sender] })],
);

/** Fixed-window message counters of the rate limits, shared by every instance. */
export const rateWindows = pgTable("rate_windows", {
  key: text("key").primaryKey(),
  windowStart: ms("window_start").notNull(),
  count: ms("count").notNull(),
});

/** The cost ledger: one row per model call (attempt), with its tokens and its cost at record time. */
export const usageLedger = pgTable(
  "usage_ledger",
  {
    id: autoId("id"),
    at: ms("at").notNull(),
    userId: text("user_id").notNull(),
    gateway: text("gateway"),
    agent: text("agent").notNull(),
    conversationId: text("conversation_id").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    kind: text("kind").notNull(),
    outcome: text("outcome").notNull(),
    inputTokens: ms("input_tokens").notNull(),
    outputTokens: ms("output_tokens").notNull(),
    cachedInputTokens: ms("cached_input_tokens").notNull(),
    /** Step 16: the part of input_tokens written to the provider's prompt cache. */
    cacheWriteInputTokens: ms("cache_write_input_tokens").notNull().default(0),
    reasoningTokens: ms("reasoning_tokens").notNull(),
    costNanos: ms("cost_nanos").notNull(),
  },
  (t) => [
    // BRIN (step 19): the sums since a period's start by time, a gateway's and an agent's too (their
    // btree indexes dropped); a user's by usage_ledger_user. Step 22: 16 pages a range, autosummarize.
    index("usage_ledger_at").using("brin", t.at).with({ pages_per_range: 16, autosummarize: true }),
    index("usage_ledger_user").on(t.userId, t.at),
  ],
);

/** One row per claimed schedule tick: the claim (before the turn starts), then the inbox record and the outcome. */
export const scheduleTicks = pgTable(
  "schedule_ticks",
  {
    schedule: text("schedule").notNull(),
    tickAt: ms("tick_at").notNull(),
    claimedAt: ms("claimed_at").notNull(),
    instance: text("instance").notNull(),
    manual: ms("manual").notNull(),
    inboxId: ms("inbox_id"),
    outcome: text("outcome")
      .$type<"claimed" | "recorded" | "delivered" | "dead" | "failed" | "silent">()
      .notNull(),
    error: text("error"),
    finishedAt: ms("finished_at"),
  },
  (t) => [primaryKey({ columns: [t.schedule, t.tickAt] }), index("schedule_ticks_open").on(t.outcome)],
);

/** The operator's pause (`agentsvc schedules pause`), per schedule name. */
export const scheduleState = pgTable("schedule_state", {
  schedule: text("schedule").primaryKey(),
  paused: ms("paused").notNull(),
  updatedAt: ms("updated_at").notNull(),
});

/** A reminder a user set from a conversation (the `remind` tool): one-off (`at`) or recurring (`cron`). */
export const reminders = pgTable(
  "reminders",
  {
    id: autoId("id"),
    gateway: text("gateway").notNull(),
    thread: text("thread").notNull(),
    userId: text("user_id").notNull(),
    agent: text("agent").notNull(),
    text: text("text").notNull(),
    at: ms("at"),
    cron: text("cron"),
    timezone: text("timezone").notNull(),
    meta: text("meta"),
    createdAt: ms("created_at").notNull(),
    endedAt: ms("ended_at"),
    ended: text("ended").$type<"done" | "cancelled">(),
  },
  (t) => [
    index("reminders_user").on(t.gateway, t.userId, t.endedAt),
    index("reminders_active").on(t.endedAt),
  ],
);

/** One stored file, content-addressed (sha256 hex of the bytes); its bytes are in blobChunks. */
export const blobs = pgTable(
  "blobs",
  {
    sha256: text("sha256").primaryKey(),
    size: ms("size").notNull(),
    contentType: text("content_type").notNull(),
    chunks: ms("chunks").notNull(),
    createdAt: ms("created_at").notNull(),
    usedAt: ms("used_at").notNull(),
  },
  (t) => [index("blobs_used").on(t.usedAt)],
);

// node-postgres reads bytea as a Buffer and writes a Buffer as bytea.
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/** A blob's bytes in pieces of at most 256 KiB, so neither a write nor a read holds a whole file. */
export const blobChunks = pgTable(
  "blob_chunks",
  {
    sha256: text("sha256").notNull(),
    seq: ms("seq").notNull(),
    data: bytea("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sha256, t.seq] })],
);

/** A platform file already fetched (or refused) per gateway, so a redelivered message downloads nothing twice. */
export const mediaDownloads = pgTable(
  "media_downloads",
  {
    gateway: text("gateway").notNull(),
    sourceKey: text("source_key").notNull(),
    sha256: text("sha256"),
    refused: text("refused"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.gateway, t.sourceKey] })],
);

/** The transcript of an audio blob, stored beside the message that carried it. */
export const blobTranscripts = pgTable("blob_transcripts", {
  sha256: text("sha256").primaryKey(),
  model: text("model").notNull(),
  text: text("text").notNull(),
  createdAt: ms("created_at").notNull(),
});

/** Every table, keyed by the same names chat-store's schema.ts exports its tables under. */
export const pgTables = {
  conversations,
  preferences,
  accounts,
  sessions,
  loginThrottle,
  memoryMessages,
  suspendedRuns,
  inbox,
  interactions,
  outbox,
  outboxHeads,
  gatewayState,
  seenTokens,
  senderPairings,
  senderApprovals,
  rateWindows,
  usageLedger,
  scheduleTicks,
  scheduleState,
  reminders,
  blobs,
  blobChunks,
  mediaDownloads,
  blobTranscripts,
};

export type PgTables = typeof pgTables;

type ColumnsOf<T extends Record<string, { $inferSelect: object }>> = {
  [K in keyof T]: keyof T[K]["$inferSelect"];
};
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compile-time half of the dialect check: the same tables with the same column properties. */
const sameColumns: Same<ColumnsOf<PgTables>, ColumnsOf<SqliteTables>> = true;
void sameColumns;

/**
 * The pg tables typed as SQLite's, which chat-store's shared query code is written against. Sound
 * because both dialects have the same tables and column properties (checked above by the compiler,
 * and by test/dialects.test.ts on real databases); what differs is drizzle's dialect brand, which
 * the shared code does not use (it never calls SQLite's synchronous `.run()`, `.get()`, `.all()`).
 */
export const pgTablesAsQueryTables: SqliteTables = pgTables as Record<
  keyof PgTables,
  unknown
> as SqliteTables;
