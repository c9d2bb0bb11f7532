export type { ChunkDelta, ChunkEnvelope, ToolCallDelta } from "./chunk.js";
export type { Message, ToolCall } from "./messages.js";
export type { CompactResult, Memory, MemoryScope } from "./memory.js";
export type { Decision, DecisionKind, RunOptions, RunOrigin, RunStore, SuspendedRun } from "./run-store.js";
export type {
  Caller,
  PendingApproval,
  RunEvent,
  RunHandle,
  RunManagerApi,
  RunStatus,
  StartRunInput,
  TurnResult,
} from "./run-manager-types.js";
export {
  defineAgent,
  defineTool,
  type AgentDefinition,
  type DemoStep,
  type GatewaySessionConfig,
  type JsonSchemaInput,
  type MemoryConfig,
  type ModelSpec,
  type ToolContext,
  type ToolDefinition,
  type ToolServerRef,
} from "./define.js";
export { AgentsvcError } from "./errors.js";
