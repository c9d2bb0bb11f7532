// The Gateway contract (adapter-kit's types and what an entry adds), listed once in gateway.ts.
export type * from "./gateway.js";
export { GatewayRegistry } from "./registry.js";
export {
  adapterInstalled,
  adapterPackageName,
  type LoadAdapterOptions,
  loadAdapterPackage,
} from "./load-adapter.js";
export {
  type GatewayScheduler,
  type IntervalTask,
  Scheduler,
  type SelfSchedulingTask,
  type TaskInfo,
} from "./scheduler.js";
export { gatewayLogger, type LoggerSource, sessionLogger } from "./loggers.js";
export type { OutboxOptions } from "./outbox-options.js";
export type { InboundOutcome, SendOutcome, SessionObserver } from "./observer.js";
export { DEFAULT_APPROVAL_EXPIRY_MS } from "./approvals.js";
export { DEFAULT_RETENTION, type RetentionOptions } from "./retention.js";
export type {
  ApprovedSender,
  PairingRecord,
  SessionSenderAccess,
  InboxDoneStatus,
  InboxRecord,
  OutboxRow,
  SessionInbox,
  SessionInteractions,
  SessionOutbox,
  SessionStore,
  StoredInteraction,
} from "./store.js";
export {
  createGatewaySession,
  DEFAULT_BUSY_REPLY,
  type GatewayEntryRef,
  GatewaySession,
  type GatewaySessionOptions,
  type GatewayStatus,
  gatewayThreadId,
  type SessionPolicy,
  type ThreadSnapshot,
} from "./session.js";
export {
  announce,
  type ClusterMessage,
  type Coordination,
  localCoordination,
  type RecordAnnounce,
} from "./coordination.js";
export { DEFAULT_STREAM_INTERVAL_MS, DEFAULT_STREAM_UPDATE_TIMEOUT_MS, firstPiece } from "./streaming.js";
export { type TraceSpan, useOpenTelemetry } from "./trace.js";
export type { RateLimit, SenderAccessOptions } from "./access.js";
export type { SessionBlobs } from "@agentsvc/adapter-kit";
