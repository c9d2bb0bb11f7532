import type { LanguageModelV3, LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelProviderName } from "@agentsvc/config-schema/models";
import type { GenericSchema } from "valibot";
import type { ModelSettings } from "./models/settings.js";
import type { RunOrigin } from "./run-store.js";

// ---- models -------------------------------------------------------------------------------

/** One scripted step of the demo model: what it streams for one model call. */
export interface DemoStep {
  reasoning?: string;
  text?: string;
  toolCalls?: { name: string; arguments: unknown }[];
}

/** The spec objects (the first model forms agentsvc had); each may carry settings and fallbacks. */
export type ModelSpec =
  /** Scripted, deterministic, offline. Always reported as a demo model. */
  (
    | { provider: "demo"; script?: DemoStep[]; tokenDelayMs?: number }
    | { provider: "openai"; model: string; apiKeyEnvVar?: string; baseURL?: string }
    | {
        provider: "anthropic";
        model: string;
        apiKeyEnvVar?: string;
        baseURL?: string;
        /**
         * Enables extended thinking with this budget (an integer, at least 1024, Anthropic's
         * minimum). Thinking blocks and their signatures are kept in history and sent back.
         */
        thinkingBudgetTokens?: number;
      }
    | { provider: "openai-compatible"; model: string; baseURL: string; apiKeyEnvVar?: string; name?: string }
  ) &
    ModelOptions;

/** `"openai/gpt-4o"`, `"anthropic/claude-sonnet-4-5"`, `"google/gemini-2.5-flash"`, ... (split at the first `/`). */
export type ModelString = `${ModelProviderName}/${string}`;

/** An AI SDK LanguageModel built in the agent file (`openai("gpt-4o")`, `createX(...)(id)`). */
export type LanguageModelInstance = LanguageModelV4 | LanguageModelV3;

/** A model string (or instance) with its key variable, server, settings and fallbacks. */
export interface ModelRef extends ModelOptions {
  model: ModelString | LanguageModelInstance;
  /** The variable holding the key, instead of the provider's documented one. */
  apiKeyEnvVar?: string;
  baseURL?: string;
  /** Provider name in logs and provider options (openai-compatible servers). */
  name?: string;
}

export interface ModelOptions {
  /** Sent with every call of this model; `maxRetries` and `timeoutMs` govern its retries and timeout. */
  settings?: ModelSettings;
  /** Tried in order when this model fails for good (they carry no fallbacks of their own). */
  fallbacks?: FallbackModel[];
}

export type FallbackModel =
  | ModelString
  | LanguageModelInstance
  | NoFallbacks<ModelSpec>
  | NoFallbacks<ModelRef>;
type NoFallbacks<T> = T extends unknown ? Omit<T, "fallbacks"> : never;

/** What an agent's `model` may be: a string, a spec object, a ModelRef or a LanguageModel instance. */
export type AgentModel = ModelString | ModelSpec | ModelRef | LanguageModelInstance;

// ---- tools --------------------------------------------------------------------------------

/** A tool input described by JSON Schema instead of valibot (tools that come from MCP servers). */
export interface JsonSchemaInput {
  type: "json-schema";
  schema: Record<string, unknown>;
}

export interface ToolContext {
  threadId: string;
  userId: string;
  conversationId: string;
  /** Where the run came from (gateway, thread, author), set by the server: never from model arguments. */
  origin?: RunOrigin;
  signal: AbortSignal;
  /** Present when this call ran after a human decision (approve or edit); `decidedBy` is server-derived. */
  approval?: { decision: "approve" | "edit"; decidedBy: string; reason?: string };
}

export interface ToolDefinition<I = unknown, O = unknown> {
  kind: "tool";
  name: string;
  description: string;
  input: GenericSchema<unknown, I> | JsonSchemaInput;
  execute(input: I, ctx: ToolContext): Promise<O> | O;
  /** `true`, or a predicate on the parsed input: the run suspends for a human decision first. */
  needsApproval?: boolean | ((input: I) => boolean);
}

export function defineTool<I, O>(tool: Omit<ToolDefinition<I, O>, "kind">): ToolDefinition<I, O> {
  return { kind: "tool", ...tool };
}

// ---- agents -------------------------------------------------------------------------------

export interface MemoryConfig {
  type?: "window" | "database";
  /** Most messages a prompt carries (window memory: also the most kept). Default 100. */
  maxMessages?: number;
  /** Estimated token budget of the history in a prompt (4 characters a token). Default: none. */
  maxPromptTokens?: number;
  summaryProvider?: "demo" | "openai" | "anthropic" | "openai-compatible";
  summaryModel?: string;
  /** Compact automatically once a scope holds more messages than this. */
  summaryThreshold?: number;
}

export interface GatewaySessionConfig {
  policy?: "reject" | "queue" | "steer" | "interrupt";
  maxQueueDepth?: number;
  /** Text of the immediate busy reply (policy `reject`, or a full queue). */
  busyReply?: string;
}

/** A tool server an agent uses: a local `mcp/` entry by declared name, or a remote MCP URL. */
export type ToolServerRef =
  | string
  | {
      url: string;
      apiKeyEnvVar?: string;
      headers?: Record<string, string>;
      /** Tool names (or `true` for all) that need approval before they run. */
      needsApproval?: boolean | string[];
    };

export interface AgentDefinition {
  kind: "agent";
  name: string;
  model: AgentModel;
  instructions?: string;
  // biome-ignore lint/suspicious/noExplicitAny: tools of any input type live in one list
  tools?: ToolDefinition<any, any>[];
  toolServers?: ToolServerRef[];
  memory?: MemoryConfig;
  /**
   * `channel`: where runs not started from a gateway are asked (a gateway entry name; default `cli`).
   * `expiresAfterSeconds`: an open request is rejected after this long (default 86 400, one day).
   */
  approvals?: { channel?: string; expiresAfterSeconds?: number };
  gatewaySession?: GatewaySessionConfig;
  /** Upper bound of model calls in one turn (guards tool loops). Default 16. */
  maxSteps?: number;
  /**
   * The built-in `remind`, `list_reminders` and `cancel_reminder` tools (off by default): people in
   * a gateway chat set one-off or recurring reminders back to that chat. `maxPerUser` active
   * reminders per person (default 20); `timezone` reads times people give (IANA, default UTC).
   */
  reminders?: boolean | { maxPerUser?: number; timezone?: string };
}

export function defineAgent(agent: Omit<AgentDefinition, "kind">): AgentDefinition {
  return { kind: "agent", ...agent };
}
