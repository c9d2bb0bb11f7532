export type {
  DecideResult,
  DecisionInput,
  DeliverResult,
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  Inbound,
  InteractionRequest,
  InteractionView,
  OutboundMeta,
} from "./gateway.js";
export { chunkText } from "./chunk-text.js";
export { GatewayRegistry } from "./registry.js";
export { adapterPackageName, type LoadAdapterOptions, loadAdapterPackage } from "./load-adapter.js";
export {
  type GatewayScheduler,
  type IntervalTask,
  Scheduler,
  type SelfSchedulingTask,
  type TaskInfo,
} from "./scheduler.js";
export { gatewayLogger, type LoggerSource, sessionLogger } from "./loggers.js";
export { describeRequest, matchDecisionText } from "./interaction.js";
export type {
  InboxDoneStatus,
  InboxRecord,
  SessionInbox,
  SessionInteractions,
  SessionStore,
  StoredInteraction,
} from "./store.js";
export {
  createGatewaySession,
  DEFAULT_BUSY_REPLY,
  type GatewayEntryRef,
  GatewaySession,
  type GatewaySessionOptions,
  gatewayThreadId,
  type SessionPolicy,
  type ThreadSnapshot,
} from "./session.js";
