export type { ChunkDelta, ChunkEnvelope, ToolCallDelta } from "./chunk.js";
export type { Message, ReasoningMetadata, ReasoningPart, ToolCall } from "./messages.js";
export type { CompactResult, Memory, MemoryScope } from "./memory.js";
export type {
  ContinuationState,
  Decision,
  DecisionKind,
  InboxRecord,
  InboxStatus,
  RunOptions,
  RunOrigin,
  RunStore,
  SuspendedRun,
} from "./run-store.js";
export type {
  Caller,
  PendingApproval,
  RunEvent,
  RunHandle,
  ContinueOptions,
  RunManagerApi,
  RunStatus,
  StartRunInput,
  TurnResult,
} from "./run-manager-types.js";
export {
  defineAgent,
  defineTool,
  type AgentDefinition,
  type AgentModel,
  type DemoStep,
  type FallbackModel,
  type LanguageModelInstance,
  type GatewaySessionConfig,
  type JsonSchemaInput,
  type MemoryConfig,
  type ModelOptions,
  type ModelRef,
  type ModelSpec,
  type ModelString,
  type ToolContext,
  type ToolDefinition,
  type ToolServerRef,
} from "./define.js";
export { AgentsvcError } from "./errors.js";
export type { FinishReason, ModelErrorCode, TurnError, TurnErrorCode, Usage } from "./model-error.js";
export { DEFAULT_TIMEOUT_MS, type ModelAttempt } from "./model-call.js";
export { classifyModelError, ModelCallError } from "./model-errors.js";
export { DEFAULT_MAX_RETRIES, RETRY_AFTER_CAP_MS } from "./model-retry.js";
export { providerPackageInstalled } from "./models/provider-package.js";
export type { ResolvedModel } from "./models/resolved-model.js";
export { createModel, type CreateModelOptions, resolveModel } from "./models/resolve-model.js";
export type { ModelSettings } from "./models/settings.js";
export { toUsage } from "./models/usage.js";
export {
  currentMeter,
  type MeteredCall,
  type MeterKind,
  type MeterScope,
  type ModelMeter,
  withMeter,
} from "./model-meter.js";
export {
  createDemoModel,
  DEMO_MODEL_ID,
  DemoLanguageModel,
  isDemoModel,
  type DemoModelOptions,
} from "./models/demo-model.js";
export {
  compactMessages,
  createSummarizer,
  demoSummary,
  planCompaction,
  SUMMARY_PREFIX,
  summaryMessage,
  transcript,
  type CompactionPlan,
  type Summarizer,
} from "./compaction.js";
export {
  estimateTokens,
  isSummary,
  promptWindow,
  type PromptWindowOptions,
} from "./prompt-window.js";
export {
  copyMessage,
  DEFAULT_WINDOW,
  trimWindow,
  WindowMemory,
  type WindowMemoryOptions,
} from "./window-memory.js";
export { InMemoryRunStore } from "./in-memory-run-store.js";
export {
  RunManager,
  type AgentDescription,
  type RunLogger,
  type RunManagerOptions,
  type ToolDescription,
} from "./run-manager.js";
export { CANCELLED_RESULT, INTERRUPTED_RESULT, DEFAULT_MAX_STEPS } from "./turn.js";
export {
  callNeedsApproval,
  parseToolInput,
  toolInputJsonSchema,
  type AnyTool,
  type ParsedInput,
} from "./tool-input.js";
export { toModelTools, toPrompt } from "./prompt.js";
export type { BlobReader } from "./prompt-files.js";
export {
  createTranscriber,
  type TranscribeAttachment,
  type Transcriber,
  type TranscriptionModelRef,
} from "./transcription.js";
export {
  type FileInput,
  MAX_PROMPT_FILE_BYTES,
  type ModelFileInputs,
  modelFileInputs,
} from "./model-inputs.js";
export { chatFinishReason, makeChunk } from "./chunk-factory.js";
export { mintThreadId, randomId } from "./ids.js";
export { fault, type FaultPoint } from "./fault.js";
export { type TraceSpan, useOpenTelemetry } from "./trace.js";
export {
  type AttachmentKind,
  type AttachmentRef,
  type RefusedReason,
  type ToolFile,
  toolFilesOf,
} from "./media.js";
export {
  DRAIN_PAST_LIMIT,
  type DrainBound,
  drainPastLimit,
  joinChunks,
  type NodeBodyResult,
  nodeBodyStream,
  readNodeBody,
  unreadNodeRequest,
} from "./node-body.js";
