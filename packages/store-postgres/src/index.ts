export {
  connectionSettings,
  connectPostgres,
  type ConnectPostgresOptions,
  DEFAULT_APPLICATION_NAME,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_POOL_SIZE,
  type PostgresConnectionSettings,
  type PostgresDb,
  type PostgresLogger,
  type PostgresSslMode,
  type PostgresStore,
  SSL_MODES,
} from "./connect.js";
export { connectDatasource, type ConnectDatasourceOptions, datasourceConnection } from "./datasource.js";
export { PostgresStoreError } from "./errors.js";
export {
  BASELINE_VERSION,
  CURRENT_SCHEMA_VERSION,
  MIGRATION_LOCK_KEY,
  MIGRATIONS,
  type MigrationReport,
  type MigrationStep,
  SCHEMA_VERSION_TABLE,
} from "./migrations.js";
export { redactConnectionString } from "./redact.js";
export {
  accounts,
  conversations,
  gatewayState,
  type InboxStatus,
  inbox,
  interactions,
  loginThrottle,
  memoryMessages,
  type OutboxKind,
  type OutboxStatus,
  outbox,
  type PgTables,
  pgTables,
  preferences,
  seenTokens,
  sessions,
  suspendedRuns,
} from "@agentsvc/store-schema/postgres";
