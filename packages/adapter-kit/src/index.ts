// What a platform adapter builds on. Adapters import from here only; the engine (session-core)
// implements the contract and uses the same helpers.
export type { AttachmentKind, AttachmentRef, DecisionKind, RefusedReason } from "@agentsvc/agent-core";
export type {
  Author,
  DecidedNotice,
  DecideResult,
  DecisionInput,
  DeliverResult,
  DraftIds,
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  GatewayFactory,
  GatewayStateStore,
  Inbound,
  InteractionRequest,
  InteractionView,
  OutboxEntry,
  ReplyStream,
  SendOptions,
  SendResult,
  StreamOptions,
  WebhookRequest,
  WebhookResponse,
  WebhookRoute,
} from "./gateway.js";
export type { GatewayScheduler, IntervalTask, SelfSchedulingTask, TaskInfo } from "./scheduler.js";
export {
  GatewaySendError,
  type GatewaySendErrorOptions,
  isGatewaySendError,
  retryAfterMs,
} from "./errors.js";
export {
  classifyFailure,
  type FailureClass,
  type FailureFacts,
  type FailureKind,
  type PlatformRule,
  fetchForSend,
  parseAnswer,
  sendFailure,
  type SendFailureOptions,
} from "./send-failure.js";
export { MissingConfigError, readSecrets, type ReadSecretsOptions } from "./secrets.js";
export { decisionLabel, decodeDecision, encodeDecision, pressableDecisions } from "./decision-codec.js";
export { Backoff, type BackoffOptions, backoffDelay, sleep } from "./backoff.js";
export { chunkText } from "./chunk-text.js";
export { EditPacing } from "./edit-pacing.js";
export { TypingRepeat, type TypingRepeatOptions } from "./typing.js";
export { GatewayLifetime, LifetimeGateway } from "./lifetime.js";
export { attachmentKindOf, claimedFile } from "./file-claim.js";
export { describeRequest, matchDecisionText } from "./interaction.js";
export {
  fileNote,
  formatBytes,
  type OutboundFile,
  type OutboundFilePayload,
  type SessionBlobs,
} from "./media.js";
export { DEFAULT_DEDUP_WINDOW_MS } from "./dedup-window.js";
export { DeafWatch, type DeafWatchOptions } from "./deaf-watch.js";
export {
  type PlatformCall,
  PlatformCallError,
  PlatformClient,
  type PlatformClientOptions,
} from "./platform-fetch.js";
export {
  FETCH_DEFAULT_HEADERS,
  HttpAnswer,
  HttpAnswerTooLargeError,
  HttpHeaderError,
  type HttpRequest,
  HttpTimeoutError,
  HttpTransport,
  type HttpTransportOptions,
  httpTransport,
  MAX_ANSWER_BYTES,
  type PlatformAnswer,
} from "./http-transport.js";
export { PollLoop, type PollLoopOptions } from "./poll-loop.js";
export { type SocketLoopOptions, SocketLoop, type SocketRead, type SocketSend } from "./socket-loop.js";
export { PlatformApi, type PlatformApiOptions } from "./platform-api.js";
export { joinThread, splitThread } from "./thread-id.js";
export { signDecision, verifyDecision } from "./signed-decision.js";
export { type DraftStreams, finishDraftOf, streamOf } from "./draft-streams.js";
