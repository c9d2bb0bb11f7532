// What a host uses of session-core besides the GatewaySession (the registry, adapter loading, the
// scheduler, loggers, pruning, tracing, cluster announcements), as an entry of its own: a host that
// makes the session only when a project needs one (the server's idle-session.ts) imports these
// statically and the package's main entry dynamically, so a bundle keeps the session's modules in a
// chunk of their own (a bundler follows every re-export of the main entry, #45.1).
export { GatewayRegistry } from "./registry.js";
export { adapterInstalled, adapterPackageName, loadAdapterPackage } from "./load-adapter.js";
export { Scheduler } from "./scheduler.js";
export { gatewayLogger, sessionLogger } from "./loggers.js";
export { DEFAULT_RETENTION, pruneOnce } from "./retention.js";
export { useOpenTelemetry } from "./trace.js";
export { announce, localCoordination } from "./coordination.js";
export { OUTBOX_IDLE_POLL_MS } from "./outbox-look.js";
export { gatewayThreadId } from "./threads.js";
