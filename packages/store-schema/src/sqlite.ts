// SQLite's drizzle table objects, which chat-store's query code is written against. They mirror the
// SQL of sqlite-migrations.ts, the source of truth; changing a table means a new step in both
// migration files AND an edit here and in postgres.ts (test/dialects.test.ts holds them together).
import { blob, index, integer, primaryKey, sqliteTable, text, unique, sql } from "./sqlite-orm.js";

export const conversations = sqliteTable(
  "conversations",
  {
    conversationId: text("conversation_id").primaryKey().notNull(),
    userId: text("user_id").notNull(),
    title: text("title"),
    messageCount: integer("message_count").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("conversations_user_updated").on(t.userId, t.updatedAt)],
);

export const preferences = sqliteTable(
  "preferences",
  {
    userId: text("user_id").notNull(),
    prefKey: text("pref_key").notNull(),
    value: text("value").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.prefKey] })],
);

export const accounts = sqliteTable("accounts", {
  username: text("username").primaryKey().notNull(),
  displayName: text("display_name").notNull(),
  passwordHash: text("password_hash").notNull(),
  active: integer("active", { mode: "boolean" }).notNull().default(true),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  deactivatedAt: integer("deactivated_at"),
});

export const sessions = sqliteTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey().notNull(),
    userId: text("user_id").notNull(),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  (t) => [index("sessions_user").on(t.userId)],
);

export const loginThrottle = sqliteTable("login_throttle", {
  throttleKey: text("throttle_key").primaryKey().notNull(),
  failures: integer("failures").notNull(),
  windowStart: integer("window_start").notNull(),
  lockedUntil: integer("locked_until"),
});

export const memoryMessages = sqliteTable(
  "memory_messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    role: text("role").notNull(),
    body: text("body").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("memory_messages_scope").on(t.userId, t.conversationId, t.id)],
);

export const suspendedRuns = sqliteTable(
  "suspended_runs",
  {
    threadId: text("thread_id").primaryKey().notNull(),
    userId: text("user_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    agentName: text("agent_name").notNull(),
    state: text("state").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("suspended_runs_conversation").on(t.userId, t.conversationId)],
);

export type InboxStatus = "queued" | "running" | "done" | "rejected" | "failed";

export const inbox = sqliteTable(
  "inbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    gateway: text("gateway").notNull(),
    dedupKey: text("dedup_key").notNull(),
    thread: text("thread").notNull(),
    text: text("text").notNull(),
    origin: text("origin").notNull(),
    status: text("status").$type<InboxStatus>().notNull(),
    receivedAt: integer("received_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
    /** JSON list of the message's attachment refs (blob ids, or why one was refused); null without any. */
    attachments: text("attachments"),
  },
  (t) => [
    unique().on(t.gateway, t.dedupKey),
    index("inbox_thread_status").on(t.gateway, t.thread, t.status, t.id),
    index("inbox_status").on(t.status, t.id),
  ],
);

export const interactions = sqliteTable(
  "interactions",
  {
    requestId: text("request_id").primaryKey().notNull(),
    threadId: text("thread_id").notNull(),
    gateway: text("gateway").notNull(),
    thread: text("thread").notNull(),
    allowedDecisions: text("allowed_decisions").notNull(),
    prompt: text("prompt").notNull(),
    createdAt: integer("created_at").notNull(),
    status: text("status").$type<"open" | "resolved">().notNull().default("open"),
    decision: text("decision"),
    resolvedAt: integer("resolved_at"),
    expiresAt: integer("expires_at"),
    participant: text("participant"),
  },
  (t) => [index("interactions_thread_open").on(t.gateway, t.thread, t.status, t.createdAt)],
);

export type OutboxKind = "text" | "approval" | "decided" | "file";
export type OutboxStatus = "pending" | "sent" | "dead";

export const outbox = sqliteTable(
  "outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    gateway: text("gateway").notNull(),
    thread: text("thread").notNull(),
    idemKey: text("idem_key").notNull().unique(),
    kind: text("kind").$type<OutboxKind>().notNull(),
    payload: text("payload").notNull(),
    status: text("status").$type<OutboxStatus>().notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    lastError: text("last_error"),
    platformId: text("platform_id"),
    createdAt: integer("created_at").notNull(),
    finishedAt: integer("finished_at"),
    /** W3C `traceparent` of the turn that wrote the piece: its send continues that trace. */
    traceparent: text("traceparent"),
  },
  (t) => [
    index("outbox_pending").on(t.status, t.nextAttemptAt, t.id),
    index("outbox_thread").on(t.gateway, t.thread, t.id),
    // Each thread's pending pieces in order (step 13).
    index("outbox_thread_pending").on(t.gateway, t.thread, t.id).where(sql`status = 'pending'`),
  ],
);

/**
 * The oldest pending piece of each (gateway, thread) with pending pieces, kept by triggers on
 * `outbox` (step 13), so "which replies are due" reads one row a thread, not every pending row.
 */
export const outboxHeads = sqliteTable(
  "outbox_heads",
  {
    gateway: text("gateway").notNull(),
    thread: text("thread").notNull(),
    headId: integer("head_id").notNull(),
    nextAttemptAt: integer("next_attempt_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.gateway, t.thread] }),
    index("outbox_heads_head").on(t.headId),
    index("outbox_heads_due").on(t.nextAttemptAt),
  ],
);

export const gatewayState = sqliteTable(
  "gateway_state",
  {
    gateway: text("gateway").notNull(),
    key: text("key").notNull(),
    value: text("value").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.gateway, t.key] })],
);

export const seenTokens = sqliteTable(
  "seen_tokens",
  {
    scope: text("scope").notNull(),
    token: text("token").notNull(),
    value: text("value").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.token] }), index("seen_tokens_expiry").on(t.expiresAt)],
);

/** Pairing codes handed to unknown direct-message senders (`dmPolicy: pairing`). */
export const senderPairings = sqliteTable(
  "sender_pairings",
  {
    code: text("code").primaryKey(),
    gateway: text("gateway").notNull(),
    sender: text("sender").notNull(),
    thread: text("thread").notNull(),
    displayName: text("display_name"),
    status: text("status").$type<"pending" | "approved" | "denied">().notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("sender_pairings_sender").on(t.gateway, t.sender)],
);

/** Senders the owner approved (`agentsvc pairing approve`), per gateway entry. */
export const senderApprovals = sqliteTable(
  "sender_approvals",
  {
    gateway: text("gateway").notNull(),
    sender: text("sender").notNull(),
    approvedAt: integer("approved_at").notNull(),
    code: text("code"),
  },
  (t) => [primaryKey({ columns: [t.gateway, t.sender] })],
);

/** Fixed-window message counters of the rate limits, shared by every instance. */
export const rateWindows = sqliteTable("rate_windows", {
  key: text("key").primaryKey(),
  windowStart: integer("window_start").notNull(),
  count: integer("count").notNull(),
});

/** The cost ledger: one row per model call (attempt), with its tokens and its cost at record time. */
export const usageLedger = sqliteTable(
  "usage_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at").notNull(),
    userId: text("user_id").notNull(),
    gateway: text("gateway"),
    agent: text("agent").notNull(),
    conversationId: text("conversation_id").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    kind: text("kind").notNull(),
    outcome: text("outcome").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    cachedInputTokens: integer("cached_input_tokens").notNull(),
    /** Step 16: the part of input_tokens written to the provider's prompt cache. */
    cacheWriteInputTokens: integer("cache_write_input_tokens").notNull().default(0),
    reasoningTokens: integer("reasoning_tokens").notNull(),
    costNanos: integer("cost_nanos").notNull(),
  },
  (t) => [
    index("usage_ledger_at").on(t.at),
    index("usage_ledger_user").on(t.userId, t.at),
    index("usage_ledger_gateway").on(t.gateway, t.at),
    index("usage_ledger_agent").on(t.agent, t.at),
  ],
);

/** One row per claimed schedule tick: the claim (before the turn starts), then the inbox record and the outcome. */
export const scheduleTicks = sqliteTable(
  "schedule_ticks",
  {
    schedule: text("schedule").notNull(),
    tickAt: integer("tick_at").notNull(),
    claimedAt: integer("claimed_at").notNull(),
    instance: text("instance").notNull(),
    manual: integer("manual").notNull(),
    inboxId: integer("inbox_id"),
    outcome: text("outcome")
      .$type<"claimed" | "recorded" | "delivered" | "dead" | "failed" | "silent">()
      .notNull(),
    error: text("error"),
    finishedAt: integer("finished_at"),
  },
  (t) => [primaryKey({ columns: [t.schedule, t.tickAt] }), index("schedule_ticks_open").on(t.outcome)],
);

/** The operator's pause (`agentsvc schedules pause`), per schedule name. */
export const scheduleState = sqliteTable("schedule_state", {
  schedule: text("schedule").primaryKey(),
  paused: integer("paused").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** A reminder a user set from a conversation (the `remind` tool): one-off (`at`) or recurring (`cron`). */
export const reminders = sqliteTable(
  "reminders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    gateway: text("gateway").notNull(),
    thread: text("thread").notNull(),
    userId: text("user_id").notNull(),
    agent: text("agent").notNull(),
    text: text("text").notNull(),
    at: integer("at"),
    cron: text("cron"),
    timezone: text("timezone").notNull(),
    meta: text("meta"),
    createdAt: integer("created_at").notNull(),
    endedAt: integer("ended_at"),
    ended: text("ended").$type<"done" | "cancelled">(),
  },
  (t) => [
    index("reminders_user").on(t.gateway, t.userId, t.endedAt),
    index("reminders_active").on(t.endedAt),
  ],
);

/** One stored file, content-addressed (sha256 hex of the bytes); its bytes are in blobChunks. */
export const blobs = sqliteTable(
  "blobs",
  {
    sha256: text("sha256").primaryKey(),
    size: integer("size").notNull(),
    contentType: text("content_type").notNull(),
    chunks: integer("chunks").notNull(),
    createdAt: integer("created_at").notNull(),
    usedAt: integer("used_at").notNull(),
  },
  (t) => [index("blobs_used").on(t.usedAt)],
);

/** A blob's bytes in pieces of at most 256 KiB, so neither a write nor a read holds a whole file. */
export const blobChunks = sqliteTable(
  "blob_chunks",
  {
    sha256: text("sha256").notNull(),
    seq: integer("seq").notNull(),
    data: blob("data", { mode: "buffer" }).$type<Buffer>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.sha256, t.seq] })],
);

/** A platform file already fetched (or refused) per gateway, so a redelivered message downloads nothing twice. */
export const mediaDownloads = sqliteTable(
  "media_downloads",
  {
    gateway: text("gateway").notNull(),
    sourceKey: text("source_key").notNull(),
    sha256: text("sha256"),
    refused: text("refused"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.gateway, t.sourceKey] })],
);

/** The transcript of an audio blob, stored beside the message that carried it. */
export const blobTranscripts = sqliteTable("blob_transcripts", {
  sha256: text("sha256").primaryKey(),
  model: text("model").notNull(),
  text: text("text").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const sqliteTables = {
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
  conversations,
  preferences,
  accounts,
  sessions,
  loginThrottle,
  memoryMessages,
  suspendedRuns,
  inbox,
  interactions,
};

export type SqliteTables = typeof sqliteTables;
