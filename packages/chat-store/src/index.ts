export {
  ChatDb,
  type ChatDbOptions,
  DEFAULT_BUSY_TIMEOUT_MS,
  type StoreDurability,
  type StoreLogger,
} from "./chat-db.js";
export { ChatDbError } from "./errors.js";
export {
  DEFAULT_PBKDF2_ITERATIONS,
  hashPassword,
  isPasswordHash,
  needsRehash,
  parsePasswordHash,
  verifyPassword,
  type ParsedPasswordHash,
} from "./password.js";
export {
  CURRENT_SCHEMA_VERSION,
  MIGRATIONS,
  SCHEMA_VERSION_TABLE,
  type MigrationReport,
  type MigrationStep,
} from "./migrations.js";
export { DEFAULT_DATABASE_PATH, DEFAULT_DATASOURCE, type DatasourceConfig } from "./paths.js";
export {
  type ConversationPage,
  type ConversationRecord,
  Conversations,
  normalizeTitle,
  TITLE_MAX_CHARS,
} from "./conversations.js";
export { Preferences } from "./preferences.js";
export { Accounts, type AccountRecord } from "./accounts.js";
export type { AccountConfig, AuthLogger, SeedReport } from "./seed-accounts.js";
export {
  DEFAULT_SESSION_TIMEOUT_MS,
  SESSION_TOUCH_INTERVAL_MS,
  Sessions,
  type SessionRecord,
} from "./sessions.js";
export { Throttle, type ThrottleOptions, type ThrottleState } from "./throttle.js";
export { SqliteMemory, type CreateMemoryOptions } from "./memory.js";
export { SqliteRunStore } from "./run-store.js";
export { Inbox, type AcceptResult, type InboxRecord, type InboxStatus } from "./inbox.js";
export {
  Interactions,
  type InteractionDecision,
  type InteractionInput,
  type InteractionRecord,
} from "./interactions.js";
export {
  Outbox,
  type OutboxFilter,
  type OutboxInput,
  type OutboxKind,
  type OutboxRecord,
  type OutboxStatus,
} from "./outbox.js";
export { GatewayState } from "./gateway-state.js";
export { type ClaimResult, SeenTokens } from "./seen-tokens.js";
export { type NewReminder, type ReminderRow, Reminders } from "./reminders.js";
export { ScheduleTicks, type TickDelivery, type TickOutcome, type TickRow } from "./schedules.js";
export { type ApprovedSender, type PairingRecord, SenderAccess } from "./sender-access.js";
export {
  type PeriodSpend,
  type Spend,
  type SplitRange,
  type UsageEntry,
  type UsageFilter,
  type UsageGroup,
  type UsageKind,
  UsageLedger,
  type UsageScope,
  type UsageTotals,
} from "./usage-ledger.js";
export { MARGIN_MS, REBASE_MS, UsageSums, type UsageSumsOptions } from "./usage-sums.js";
export { isStoreLocked, StoreHealth, type StoreAccess, type StoreState } from "./store-health.js";
export {
  PoolHealth,
  type PooledDrizzle,
  poolDriver,
  type StoreBackend,
  type StoreHealthView,
  type StoreOptions,
} from "./backend.js";
export type { Db, Dialect, Tables, TransactionDriver } from "./context.js";
export type { CheckpointStats } from "./checkpointer.js";
/** The SQLite table objects; a PostgreSQL backend mirrors them column for column. */
export { sqliteTables } from "@agentsvc/store-schema/sqlite";
export { type OpenPostgresOptions, openPostgresChatDb } from "./postgres.js";
export {
  BLOB_CHUNK_BYTES,
  type BlobInfo,
  type BlobOptions,
  BlobStore,
  DEFAULT_BLOB_OPTIONS,
  type DownloadRecord,
} from "./blobs.js";
