import type { BuildError, BuildWarning } from "./issues.js";
import type { IconValue } from "./schemas/webui.js";
import type { MediaConfig } from "./schemas/media.js";
import type { PUSH_TYPES } from "./load/adapters.js";
import type { BudgetsConfig, PriceConfig } from "./schemas/spend.js";

export type SessionPolicy = "reject" | "queue" | "steer" | "interrupt";

export interface GatewaySession {
  policy: SessionPolicy;
  maxQueueDepth: number;
  busyReply?: string;
}

export interface MemorySettings {
  type?: "window" | "database";
  maxMessages?: number;
  maxPromptTokens?: number;
  summaryProvider?: "demo" | "openai" | "anthropic" | "openai-compatible";
  summaryModel?: string;
  summaryThreshold?: number;
}

/** Paths (`file`) are relative to the project root with `/` separators, e.g. `agents/assistant.ts`. */
export interface AgentEntry {
  /** File name without extension (`agents/<name>.ts`); `config.rootAgent` refers to this. */
  name: string;
  /** The `name` the module declares through defineAgent. */
  declaredName: string;
  file: string;
  /** The module's export as loaded (agent-core's AgentDefinition). */
  definition: unknown;
  gatewaySession: GatewaySession;
  memory?: MemorySettings;
}

export interface ToolServerEntry {
  /** The declared name (`defineToolServer({ name })`), which `mcp` exposures target. */
  name: string;
  file: string;
  definition: unknown;
}

interface EntryBase {
  /** File name without extension. */
  entryName: string;
  file: string;
}

export interface AgentExposure extends EntryBase {
  exposes: "agent";
  path: string;
  apiKeyEnvVar?: string;
}

export interface McpExposure extends EntryBase {
  exposes: "mcp";
  path: string;
  target: string;
  apiKeyEnvVar?: string;
}

export interface Account {
  username: string;
  /** Defaults to `username`. */
  displayName: string;
  passwordEnvVar?: string;
  passwordHash?: string;
}

export type Icon = IconValue;

export interface WebuiExposure extends EntryBase {
  exposes: "webui";
  path: string;
  apiKeyEnvVar?: string;
  users?: Account[];
  database: { datasource: string; path: string };
  title?: string;
  subtitle?: string;
  icon?: Icon;
  welcome?: string;
  placeholder?: string;
  footer?: string;
  /** Up to 6 prompts (1-200 characters each) offered as buttons in the page's empty state. */
  starterPrompts?: string[];
  showReasoning: boolean;
  showToolCalls: boolean;
  /** Light tokens, hex values with `#` added. */
  theme: Record<string, string>;
  /** `theme.dark` overrides. */
  themeDark: Record<string, string>;
  themeFile: string;
  /** Contents of `themeFile` when the file exists. */
  themeCss?: string;
  /** Uploads on the chat page (absent: the page offers no attach button). */
  media?: MediaConfig;
}

export type Exposure = AgentExposure | McpExposure | WebuiExposure;

/** Keys every gateway entry may carry (see the session-core README). */
export interface GatewayEntryCommon {
  /** Platform thread for approval requests of runs that did not come through this gateway. */
  approvalDestination?: string;
  /** Platform user ids that may decide any request on this gateway, besides the thread's participant. */
  approvers?: string[];
  /** Stream replies while the agent writes (platforms that can; default true). */
  streaming?: boolean;
  /** Least time between two updates of a streamed reply (default 1 000 ms). */
  streamIntervalMs?: number;
}

type GatewayBase = EntryBase & GatewayEntryCommon;

/** Who may start a turn through a push gateway entry (see the session-core README "Sender access"). */
export interface SenderAccess {
  /** Direct messages: `open` (default), `allowlist`, `pairing` or `disabled`. */
  dmPolicy?: "open" | "allowlist" | "pairing" | "disabled";
  /** Platform user ids (e-mail addresses, phone numbers) allowed in direct messages. */
  allowFrom?: string[];
  /** Groups and channels: `open` (default), `allowlist` or `disabled`. */
  groupPolicy?: "open" | "allowlist" | "disabled";
  /** Group or channel ids answered under `groupPolicy: allowlist`. */
  groupAllowFrom?: string[];
  /** How long a pairing code stays valid (default 3 600 s). */
  pairingCodeTtlSeconds?: number;
  /** The answer to a refused sender, once per sender per day; `false` answers nothing. */
  refusalReply?: string | false;
  /** Messages admitted per sender per window. */
  rateLimit?: { messages: number; perSeconds: number };
  /** Messages admitted through the whole entry per window. */
  gatewayRateLimit?: { messages: number; perSeconds: number };
}

/** Attachments an entry takes in (issue #46); see `mediaPolicyOf` for the defaults without a block. */
type PushBase = GatewayBase &
  SenderAccess & {
    media?: MediaConfig;
    /**
     * What an attachment gets without a `media` block, when the entry's adapter says so
     * (`adapter.unsupportedMedia`: WhatsApp's `ignore`); absent: `reply`.
     */
    unsupportedMedia?: "reply" | "ignore";
    /** Reconnect when nothing arrived for this long while the connection is up ("10m"; connection adapters). */
    deafAfter?: string;
  };

export type ChannelEntry =
  | (GatewayBase & { type: "mock" })
  | (GatewayBase & { type: "cli" })
  | (GatewayBase & { type: "http"; secretEnvVar: string; callbackUrl?: string });

/** A built-in push-style type (each `@agentsvc/gateway-<type>`). */
export type PushType = (typeof PUSH_TYPES)[number];

/**
 * A push-style entry: the common keys, and the platform keys its adapter's `entrySchema` checked
 * (with their defaults filled in). `type` is the registry name (the adapter's `adapter.type`);
 * `package` is set when the entry named a third-party adapter package in `type`.
 */
export type PushGatewayEntry = PushBase & {
  type: string;
  package?: string;
  [platformKey: string]: unknown;
};

export type PostgresSslMode = "off" | "require" | "verify-full";

export interface SqliteDatasource {
  type: "sqlite";
}

/** A PostgreSQL server shared by every instance (several machines behind a load balancer). */
export interface PostgresDatasource {
  type: "postgres";
  /** The NAME of the environment variable holding `postgres://user:password@host:port/database`. */
  urlEnvVar: string;
  /** Connections this instance may open. Default 10. */
  pool: number;
  /**
   * TLS to the server. Unset: the URL's `sslmode` when it has one, else `off` for a loopback host
   * and `verify-full` for any other.
   */
  ssl?: PostgresSslMode;
  /** PEM file of the CA that signed the server certificate (with `ssl: verify-full`), relative to the project root. */
  sslCaFile?: string;
  /** `application_name` shown in pg_stat_activity. Default `agentsvc`. */
  applicationName?: string;
  /** `statement_timeout` of every connection, in ms (0 = off). Default: the server's setting. */
  statementTimeoutMs?: number;
  /** Bound on opening one connection (TCP, TLS, sign-in), in ms. Default 10,000. */
  connectTimeoutMs?: number;
  /** How long an idle pooled connection is kept, in ms (0: until the pool ends). Default 600,000 (10 minutes). */
  idleTimeoutMs?: number;
  /**
   * The store's datasource: the most threads one instance holds at once (each a session advisory
   * lock in the server's shared lock table). Default 1000. `AGENTSVC_MAX_HELD_THREADS`, when set,
   * wins over it (one instance changed without editing the shared config).
   */
  maxHeldThreads?: number;
}

export type Datasource = SqliteDatasource | PostgresDatasource;

export interface ProjectConfig {
  port?: number;
  /** Extra names the service may be reached by, besides loopback names and the bind host. */
  allowedHosts?: string[];
  rootAgent?: string;
  /** The service's public base URL behind a proxy (webhook signature bases, links). */
  publicBaseUrl?: string;
  /** Always holds `agentsvc` (sqlite), declared or not. */
  datasources: Record<string, Datasource>;
  /**
   * The datasource of the project's own store (memory, suspended runs, gateway inbox and outbox).
   * Default: the first webui entry's database, else `agentsvc` (`./data/agentsvc.db`). A postgres
   * datasource here runs the project on several instances.
   */
  store?: string;
  /**
   * `store.durability`: `power` (default) fsyncs before every answer, so an acknowledged write
   * survives power loss; `process` (SQLite `synchronous = NORMAL` in WAL) survives a process crash
   * but may lose the last commits on power loss.
   */
  storeDurability?: StoreDurability;
  /** Prometheus metrics; absent = off. */
  metrics?: MetricsConfig;
  /** Model prices per million tokens (`provider/model` keys), for the cost ledger. */
  prices?: Record<string, PriceConfig>;
  /** Token and cost budgets (schemas/spend.ts); absent = nothing refused. */
  budgets?: BudgetsConfig;
}

export interface MetricsConfig {
  /** Where the text format is served. Default `/metrics` with a `port`. */
  path: string;
  /** A separate listener on 127.0.0.1 instead of the service's port. */
  port?: number;
  /** Scrapers must send this variable's value (`Authorization: Bearer` or `X-API-Key`). */
  apiKeyEnvVar?: string;
}

export type StoreDurability = "power" | "process";

export interface Project {
  /** Absolute path of the project folder. */
  root: string;
  /** Relative path of the config file, when there is one. */
  configFile?: string;
  config: ProjectConfig;
  agents: AgentEntry[];
  rootAgent: AgentEntry;
  toolServers: ToolServerEntry[];
  exposures: Exposure[];
  channels: ChannelEntry[];
  /** One per push-style type: when two entries share a type the later file (by name) wins, with a warning. */
  pushGateways: PushGatewayEntry[];
  /** Files under schedules/, sorted by name. */
  schedules: ScheduleEntry[];
}

/** One file under schedules/ (see schemas/schedule.ts). Exactly one of `cron` and `everyMs`. */
export interface ScheduleEntry {
  /** File name without extension: the schedule's name in the store, the CLI and metrics. */
  name: string;
  file: string;
  cron?: string;
  everyMs?: number;
  /** IANA timezone the cron pattern is read in (default UTC). */
  timezone: string;
  prompt: string;
  /** Agent file name; absent: the root agent. */
  agent?: string;
  /**
   * A push gateway's thread (`gateway` is its type, the registry key; `subject`: e-mail, a new
   * message's subject; `template`: WhatsApp, the approved template the reply goes in), or a chat
   * page user's conversation.
   */
  to: ScheduleTarget;
  enabled: boolean;
  catchUp: "none" | "last";
}

/** Where a schedule's reply goes: a push gateway's thread, or a chat page user's conversation. */
export type ScheduleTarget =
  | {
      gateway: string;
      thread: string;
      subject?: string;
      template?: { name: string; language: string };
    }
  | {
      /** The webui entry's name (its file name). */
      page: string;
      /** The account's username; absent when the entry has no `users` (its shared workspace). */
      user?: string;
      conversation: string;
    };

export type LoadResult =
  | {
      ok: true;
      project: Project;
      warnings: BuildWarning[];
      /**
       * Writes this load's YAML data to `.agentsvc/yaml-cache.json` (with `yamlCache`; a no-op
       * otherwise). Left to the caller so a start that fails later creates nothing on disk.
       */
      saveYamlCache(): void;
    }
  | { ok: false; errors: BuildError[]; warnings: BuildWarning[] };
