// What a GatewaySession is built from, and what it shows of itself: the options, their checks at
// build (a bad policy, an unregistered gateway, a bad expiry fail the boot), and the status types.
import {
  type AgentDefinition,
  AgentsvcError,
  type RunManagerApi,
  type SuspendedRun,
} from "@agentsvc/agent-core";
import { DEFAULT_APPROVAL_EXPIRY_MS } from "./approvals.js";
import type { Coordination } from "./coordination.js";
import type { GatewayEntryOptions } from "./gateway.js";
import { DEFAULT_MAX_HELD_THREADS, MAX_HELD_THREADS_ENV } from "./held-cap.js";
import type { LoggerSource } from "./loggers.js";
import type { SessionObserver } from "./observer.js";
import type { OutboxOptions } from "./outbox-options.js";
import type { SessionPolicy } from "./policy.js";
import type { GatewayRegistry } from "./registry.js";
import type { RetentionOptions } from "./retention.js";
import type { Scheduler } from "./scheduler.js";
import type { SessionStore } from "./store.js";

const POLICIES: readonly SessionPolicy[] = ["reject", "queue", "steer", "interrupt"];

/**
 * How long an idle thread stays with the instance that ran it (#45.3). A suspended thread is kept at
 * most 1000 ms of any hold (hold-timers.ts SUSPENDED_HOLD_MS): a decision for it reaching another
 * instance tries the thread for 2 s (`claimSoon`) before it answers busy. Not longer by default: 5 s
 * was measured (cluster bench, 4 December): under load three instances' threads got their next message
 * 1.4-4.8 s after the last, and held they were not taken over (lock operations a message on three
 * 1.99 -> 0.38, statements 1.28x -> 1.18x of one), but every held thread is an advisory lock that every
 * turn's commit fence and announcing INSERT read in pg_locks (chat-store lock-fence.ts, pg-writes.ts):
 * PostgreSQL's statement time on three 1.13 -> 1.44 ms a message, CPU against one 1.22x -> 1.41x, the
 * replies' commit -> send p90 longer in 6 of 8 runs, the first minute at rest 0.91x -> 2.00x of one.
 * (Those reads are gone since: the fences and announcements ask the lock manager. 3 s measured again
 * after that, 5 December, load 7: statements 1.37 -> 1.38 a message, CPU 1.09x: still not worth it.)
 */
export const DEFAULT_THREAD_HOLD_MS = 1000;

export const DEFAULT_BUSY_REPLY =
  "I am still working on your previous message. Please wait for my reply, then send this again.";

export interface GatewayEntryRef extends GatewayEntryOptions {
  /** Entry name (file name without extension). */
  name: string;
  type: string;
  /** For error messages, e.g. `gateways/telegram.yaml`. */
  file?: string;
}

export interface GatewaySessionOptions {
  runs: RunManagerApi;
  store: SessionStore;
  registry: GatewayRegistry;
  /** The root agent: its `gatewaySession` policy and its `approvals` (channel, expiry). */
  agent: Pick<AgentDefinition, "name" | "gatewaySession" | "approvals">;
  /** Configured gateway entries; each must have a registered gateway (checked at build). */
  entries?: GatewayEntryRef[];
  loggers?: LoggerSource;
  env?: Readonly<Record<string, string | undefined>>;
  /** Shared scheduler; created when not given. */
  scheduler?: Scheduler;
  /** Subscribe to `runs.onSuspended` at start (default true). Set false if the server wires `handleSuspension` itself. */
  subscribeSuspensions?: boolean;
  /** Which suspended runs without a gateway origin the session asks about (default: all). */
  ownsRun?: (run: SuspendedRun) => boolean;
  outbox?: OutboxOptions;
  retention?: Partial<RetentionOptions>;
  /** The public base URL of the service behind a proxy; handed to gateways. */
  publicBaseUrl?: string;
  /**
   * Several instances over one store (PostgreSQL): who runs which thread, who sends the outbox and
   * holds the platform connections. Default: one instance, everything here.
   */
  coordination?: Coordination;
  /**
   * How often a shared session looks for work nobody took (lost announcements, dead instances):
   * messages at least this old. Idle, it looks every 2nd, 4th, then 8th period. Default 1000 ms.
   */
  sweepMs?: number;
  /**
   * Several instances: how long a thread stays with the instance that ran it once it has no work,
   * so its next message does not move it (a lock, an adoption and a release elsewhere). A suspended
   * thread stays at most 1000 ms of it (a decision for it on another instance waits up to about 2 s
   * for it). Default 1000 ms; 0 lets it go at once.
   */
  threadHoldMs?: number;
  /**
   * Several instances, or one on PostgreSQL: the most threads this instance holds at once (each one
   * an advisory lock in the server's shared lock table). Messages of threads beyond it stay queued
   * in the inbox and run as held threads are let go. Default `AGENTSVC_MAX_HELD_THREADS` from `env`,
   * else 1000 (held-cap.ts says why). One instance on SQLite holds no locks: no cap.
   */
  maxHeldThreads?: number;
  /** Told what happens, for metrics (the server's Prometheus series). */
  observer?: SessionObserver;
  /**
   * Longest wait for one streamed-preview update before it is aborted and the turn goes on without
   * it (a hung platform call must not hold the turn's commit). Default 10 000 ms.
   */
  streamUpdateTimeoutMs?: number;
}

export interface ThreadSnapshot {
  running: boolean;
  phase?: "running" | "suspended";
  queued: number;
  /** Messages spliced into the running turn by `steer` (done when it commits). */
  steered: number;
  pendingRequestId?: string;
}

/** One gateway as `status()` and the server's `/health` show it. */
export interface GatewayStatus {
  state: "running" | "stopped";
  /** Why it was stopped: `credentials rejected by <platform>: check <ENV_VAR> (<detail>)`. */
  reason?: string;
  /** Seconds since the platform last sent this gateway anything (absent: nothing yet since start). */
  lastInboundAgeSeconds?: number;
  /** Seconds since a call to the platform last worked: a sent reply, a poll, a heartbeat (absent: none yet). */
  lastPlatformCallAgeSeconds?: number;
}

/** The options checked: what the session keeps of them. */
export interface SessionSettings {
  policy: SessionPolicy;
  maxQueueDepth: number;
  busyReply: string;
  /** Entry options by registry key (the entry's name, or its type when registered by type). */
  entries: Map<string, GatewayEntryOptions>;
  approvalChannel: string;
  approvalExpiresAfterMs: number;
  maxHeldThreads: number;
}

/** Checks the options at build: throws the error a user sees at boot. */
export function sessionSettings(options: GatewaySessionOptions): SessionSettings {
  const config = options.agent.gatewaySession ?? {};
  const policy = config.policy ?? "queue";
  if (!POLICIES.includes(policy)) {
    throw new AgentsvcError(
      "bad_policy",
      `agent "${options.agent.name}": gatewaySession.policy: expected one of ${POLICIES.join(", ")} (got "${String(policy)}")`,
    );
  }
  const depth = config.maxQueueDepth ?? 50;
  if (!Number.isInteger(depth) || depth < 0) {
    throw new AgentsvcError(
      "bad_queue_depth",
      `agent "${options.agent.name}": gatewaySession.maxQueueDepth: expected an integer >= 0 (got ${String(depth)})`,
    );
  }
  const entries = new Map<string, GatewayEntryOptions>();
  for (const entry of options.entries ?? []) {
    const key = options.registry.has(entry.name) ? entry.name : entry.type;
    const gateway = options.registry.get(key);
    if (!gateway || gateway.type !== entry.type) {
      throw new AgentsvcError(
        "gateway_not_registered",
        `${entry.file ?? `gateways/${entry.name}`}: type: no gateway of type "${entry.type}" is registered for entry "${entry.name}"; ` +
          `load its adapter (pnpm add @agentsvc/gateway-${entry.type}) and register it before building the session`,
        500,
      );
    }
    entries.set(key, {
      ...(entry.approvalDestination ? { approvalDestination: entry.approvalDestination } : {}),
      ...(entry.approvers ? { approvers: entry.approvers } : {}),
      ...(entry.streaming !== undefined ? { streaming: entry.streaming } : {}),
      ...(entry.streamIntervalMs !== undefined ? { streamIntervalMs: entry.streamIntervalMs } : {}),
      ...(entry.access ? { access: entry.access } : {}),
      ...(entry.media ? { media: entry.media } : {}),
    });
  }
  const expiresAfterSeconds = options.agent.approvals?.expiresAfterSeconds;
  if (
    expiresAfterSeconds !== undefined &&
    !(Number.isFinite(expiresAfterSeconds) && expiresAfterSeconds > 0)
  ) {
    throw new AgentsvcError(
      "bad_approval_expiry",
      `agent "${options.agent.name}": approvals.expiresAfterSeconds: expected a number of seconds > 0 (got ${String(expiresAfterSeconds)})`,
    );
  }
  // An empty variable counts as unset.
  const fromEnv = (options.env ?? process.env)[MAX_HELD_THREADS_ENV] || undefined;
  const maxHeld = options.maxHeldThreads ?? Number(fromEnv ?? DEFAULT_MAX_HELD_THREADS);
  if (!Number.isInteger(maxHeld) || maxHeld < 1) {
    const from = options.maxHeldThreads === undefined ? MAX_HELD_THREADS_ENV : "maxHeldThreads";
    throw new AgentsvcError(
      "bad_max_held_threads",
      `${from}: expected an integer >= 1 (got "${String(options.maxHeldThreads ?? fromEnv)}")`,
    );
  }
  return {
    policy,
    maxQueueDepth: depth,
    busyReply: config.busyReply ?? DEFAULT_BUSY_REPLY,
    entries,
    approvalChannel: options.agent.approvals?.channel ?? "cli",
    approvalExpiresAfterMs:
      expiresAfterSeconds !== undefined ? expiresAfterSeconds * 1000 : DEFAULT_APPROVAL_EXPIRY_MS,
    maxHeldThreads: maxHeld,
  };
}
