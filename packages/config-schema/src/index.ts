export { type BuildError, type BuildWarning, formatIssue } from "./issues.js";
export { type LoadOptions, loadProject } from "./load/project.js";
export { missingModelKeys, modelKeyVar } from "./model-keys.js";
export {
  BEDROCK_API_KEY_VAR,
  isLanguageModelInstance,
  MODEL_PROVIDERS,
  type ModelProviderInfo,
  type ModelProviderName,
  type ModelTarget,
  modelKeyVars,
  modelsOf,
  modelTarget,
  parseModelString,
} from "./model-providers.js";
export { checkAgentModel } from "./schemas/model.js";
export { datasourceUrlUnset, isPostgresDatasource, missingDatasourceEnv } from "./datasource-env.js";
export { closest, didYouMean } from "./did-you-mean.js";
export { GATEWAY_TYPES } from "./load/gateway-entry.js";
export { gatewayEntryJsonSchema, gatewayEntrySchema } from "./schemas/gateway-entry.js";
export {
  agentDefinitionSchema,
  DEFAULT_MAX_QUEUE_DEPTH,
  DEFAULT_POLICY,
  gatewaySessionSchema,
  memorySchema,
  SESSION_POLICIES,
  toolServerDefinitionSchema,
} from "./schemas/agent.js";
export { CHANNEL_TYPES } from "./schemas/channel.js";
export {
  DATASOURCE_TYPES,
  DEFAULT_POSTGRES_POOL,
  datasourceSchema,
  MAX_POSTGRES_POOL,
  POSTGRES_SSL_MODES,
  postgresDatasourceSchema,
  projectConfigSchema,
  sqliteDatasourceSchema,
  STORE_DURABILITIES,
} from "./schemas/config.js";
export { EXPOSES } from "./schemas/exposure.js";
export {
  DEFAULT_MEDIA_MAX_BYTES,
  DEFAULT_TRANSCRIPTION_MODEL,
  MEDIA_TYPES,
  type MediaConfig,
  type MediaType,
  mediaPolicyOf,
} from "./schemas/media.js";
export { adapterPackageOf } from "./adapter/package-name.js";
export { findAdapter, type FoundAdapter, PUSH_TYPES } from "./load/adapters.js";
export { installCommand, type MissingAdapters, missingAdapters } from "./load/install-command.js";
export { COLOR_TOKENS, SIZE_TOKENS, THEME_TOKENS, type ThemeToken } from "./schemas/theme.js";
export {
  DEFAULT_DATABASE_PATH,
  DEFAULT_DATASOURCE,
  DEFAULT_THEME_FILE,
  PASSWORD_HASH,
  webuiExposureSchema,
} from "./schemas/webui.js";
export type {
  Account,
  AgentEntry,
  AgentExposure,
  ChannelEntry,
  Datasource,
  Exposure,
  GatewaySession,
  Icon,
  LoadResult,
  McpExposure,
  MemorySettings,
  PostgresDatasource,
  PostgresSslMode,
  Project,
  ProjectConfig,
  StoreDurability,
  MetricsConfig,
  PushGatewayEntry,
  ScheduleEntry,
  SenderAccess,
  PushType,
  SessionPolicy,
  SqliteDatasource,
  ToolServerEntry,
  WebuiExposure,
} from "./types.js";
export type { BudgetLimits, BudgetsConfig, PriceConfig } from "./schemas/spend.js";
