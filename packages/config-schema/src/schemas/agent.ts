import * as v from "valibot";
import { closed, envVarName, httpUrl, integerIn, nonEmptyString, strict } from "./common.js";
import { agentModelSchema } from "./model.js";
import { remindersSchema } from "./schedule.js";

export const SESSION_POLICIES = ["reject", "queue", "steer", "interrupt"] as const;
export const DEFAULT_POLICY = "queue";
export const DEFAULT_MAX_QUEUE_DEPTH = 50;
const PROVIDERS = ["demo", "openai", "anthropic", "openai-compatible"] as const;

export const gatewaySessionSchema = strict(
  {
    policy: v.optional(
      v.picklist(SESSION_POLICIES, `must be one of ${SESSION_POLICIES.join(", ")}`),
      DEFAULT_POLICY,
    ),
    maxQueueDepth: v.optional(integerIn(0, Number.MAX_SAFE_INTEGER, "queue depth"), DEFAULT_MAX_QUEUE_DEPTH),
    busyReply: v.optional(nonEmptyString("text of the busy reply")),
  },
  "gatewaySession",
);

export const memorySchema = strict(
  {
    type: v.optional(v.picklist(["window", "database"], "must be window or database")),
    maxMessages: v.optional(integerIn(1, Number.MAX_SAFE_INTEGER, "messages in a prompt")),
    maxPromptTokens: v.optional(
      integerIn(1, Number.MAX_SAFE_INTEGER, "estimated tokens of history in a prompt"),
    ),
    summaryProvider: v.optional(v.picklist(PROVIDERS, `must be one of ${PROVIDERS.join(", ")}`)),
    summaryModel: v.optional(nonEmptyString("summary model name")),
    summaryThreshold: v.optional(
      integerIn(1, Number.MAX_SAFE_INTEGER, "message count that triggers compaction"),
    ),
  },
  "memory",
);

const apiKey = v.optional(envVarName);

const toolSchema = v.looseObject(
  {
    kind: v.literal("tool", "must be created with defineTool(...)"),
    name: nonEmptyString("tool name"),
  },
  "must be a tool created with defineTool(...)",
);

const toolServerRef = v.union(
  [
    nonEmptyString("declared name of a tool server under mcp/"),
    v.looseObject({ url: httpUrl("MCP server URL"), apiKeyEnvVar: apiKey }),
  ],
  "must be the name of a tool server under mcp/ or { url } of a remote MCP server",
);

/** The default export of agents/<name>.ts: agent-core's AgentDefinition, checked by shape, every key known. */
export const agentDefinitionSchema = closed(
  {
    kind: v.literal("agent", "must be created with defineAgent(...)"),
    name: nonEmptyString("agent name"),
    model: agentModelSchema,
    instructions: v.optional(v.string("must be a string")),
    tools: v.optional(v.array(toolSchema, "must be a list of tools")),
    toolServers: v.optional(v.array(toolServerRef, "must be a list")),
    memory: v.optional(memorySchema),
    approvals: v.optional(
      strict({ channel: v.optional(nonEmptyString("approval channel entry name")) }, "approvals"),
    ),
    gatewaySession: v.optional(gatewaySessionSchema, {}),
    maxSteps: v.optional(integerIn(1, 10_000, "model calls per turn")),
    reminders: v.optional(remindersSchema),
  },
  "an agent definition",
  "must be an agent created with defineAgent(...)",
);

/** The default export of mcp/<name>.ts: only its declared name is read here. */
export const toolServerDefinitionSchema = v.looseObject(
  {
    name: nonEmptyString("declared tool-server name"),
    tools: v.optional(v.array(v.unknown(), "must be a list of tools")),
  },
  "must be a tool server created with defineToolServer({ name, tools })",
);
