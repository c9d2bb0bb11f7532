// The GatewaySession: exactly one per project, bound to the root agent. It records inbound gateway
// messages durably, applies the busy policy per thread, queues replies in the durable outbox, and
// carries approvals between the RunManager and the gateways. Start recovers first; stop drains
// running turns before anything is stopped.
import { randomBytes } from "node:crypto";
import {
  type AgentDefinition,
  AgentsvcError,
  type PendingApproval,
  type RunManagerApi,
  type SuspendedRun,
  fault,
} from "@agentsvc/agent-core";
import type { Logger } from "pino";
import { Approvals, DEFAULT_APPROVAL_EXPIRY_MS } from "./approvals.js";
import { contextFor } from "./context.js";
import { type ClusterMessage, type Coordination, localCoordination } from "./coordination.js";
import type {
  DecideResult,
  DecisionInput,
  DeliverResult,
  Gateway,
  GatewayEntryOptions,
  Inbound,
  InteractionView,
} from "./gateway.js";
import { gatewayLogger, type LoggerSource, sessionLogger } from "./loggers.js";
import { DEFAULT_MAX_ATTEMPTS, type OutboxOptions, OutboxSender } from "./outbox-sender.js";
import type { SessionParts } from "./parts.js";
import { recover } from "./recovery.js";
import type { GatewayRegistry } from "./registry.js";
import { DEFAULT_RETENTION, pruneOnce, type RetentionOptions } from "./retention.js";
import { Scheduler } from "./scheduler.js";
import type { SessionStore } from "./store.js";
import { gatewayThreadId, type QueuedMessage, Threads } from "./threads.js";
import { Turns } from "./turns.js";
import { DEFAULT_STREAM_UPDATE_TIMEOUT_MS, Previews } from "./streaming.js";
import { checkInbound, originOf } from "./inbound.js";
import { refusalPieces, restricts, SenderGate, type SenderAccessOptions } from "./access.js";
import { type MediaOptions, nothingToRun, unsupportedNote } from "./media-notes.js";
import { textPieces } from "./replies.js";
import type { SessionObserver } from "./observer.js";
import { inSpan, traced } from "./trace.js";
import { BusyPolicy } from "./policy.js";
import { interactionView } from "./interaction-view.js";
import { Ownership } from "./ownership.js";

import type { SessionPolicy } from "./policy.js";
export type { SessionPolicy };
const POLICIES: readonly SessionPolicy[] = ["reject", "queue", "steer", "interrupt"];

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
  /** How often a shared session looks for work nobody took (lost announcements, dead instances). Default 1000 ms. */
  sweepMs?: number;
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

export { gatewayThreadId };

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

/** A gateway that holds a connection to its platform (a long poll, a socket, an IMAP poll, a stream): one instance at a time. */
function holdsConnection(gateway: Gateway): boolean {
  return gateway.kind === "push" && !gateway.webhooks;
}

/** Builds the session; fails at boot when a configured entry's gateway is not registered or the policy is unknown. */
export function createGatewaySession(options: GatewaySessionOptions): GatewaySession {
  return new GatewaySession(options);
}

export class GatewaySession {
  readonly policy: SessionPolicy;
  readonly maxQueueDepth: number;
  readonly busyReply: string;
  readonly scheduler: Scheduler;
  readonly logger: Logger;

  readonly #options: GatewaySessionOptions;
  readonly #parts: SessionParts;
  readonly #turns: Turns;
  readonly #gate: SenderGate;
  readonly #approvals: Approvals;
  readonly #policy: BusyPolicy;
  readonly #coordination: Coordination;
  readonly #ownership: Ownership;
  readonly #bootId = randomBytes(6).toString("hex");
  #leading = false;
  #stopLeading: (() => Promise<void>) | undefined;
  #unsubscribeCluster: (() => void) | undefined;
  readonly #entries = new Map<string, GatewayEntryOptions>();
  readonly #gatewayLoggers = new Map<string, Logger>();
  /** Gateways stopped while the service runs (rejected credentials), with the reason. */
  readonly #halted = new Map<string, string>();
  /** Gateway name -> when the platform last sent it something, and when a call to it last worked (ms epoch). */
  readonly #lastInboundAt = new Map<string, number>();
  readonly #lastPlatformCallAt = new Map<string, number>();
  readonly #inflight = new Set<Promise<unknown>>();
  /** Inbox ids recovery scheduled: a message delivered while it ran is not queued twice. */
  readonly #known = new Set<number>();
  #recovered: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  #started = false;
  #stopping = false;
  #stopped: Promise<void> | undefined;

  constructor(options: GatewaySessionOptions) {
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
      this.#entries.set(key, {
        ...(entry.approvalDestination ? { approvalDestination: entry.approvalDestination } : {}),
        ...(entry.approvers ? { approvers: entry.approvers } : {}),
        ...(entry.streaming !== undefined ? { streaming: entry.streaming } : {}),
        ...(entry.streamIntervalMs !== undefined ? { streamIntervalMs: entry.streamIntervalMs } : {}),
        ...(entry.access ? { access: entry.access } : {}),
        ...(entry.media ? { media: entry.media } : {}),
      });
    }
    this.policy = policy;
    this.maxQueueDepth = depth;
    this.busyReply = config.busyReply ?? DEFAULT_BUSY_REPLY;
    this.#options = options;
    this.logger = sessionLogger(options.loggers ?? {});
    this.scheduler = options.scheduler ?? new Scheduler(this.logger);
    this.#coordination = options.coordination ?? localCoordination;
    const coordination = this.#coordination;
    const previews = new Previews(
      options.store,
      (g) => this.loggerFor(g),
      options.streamUpdateTimeoutMs ?? DEFAULT_STREAM_UPDATE_TIMEOUT_MS,
    );
    const sender = new OutboxSender({
      drafts: previews,
      store: options.store,
      registry: options.registry,
      loggerFor: (g) => this.loggerFor(g),
      logger: this.logger,
      ...(options.outbox ? { options: options.outbox } : {}),
      // Another instance sends: tell it there is something to send.
      ...(coordination.shared ? { elsewhere: () => void coordination.publish({ kind: "outbox" }) } : {}),
      onCredentials: (gateway, error) =>
        this.credentialsRejected(gateway.name, error.envVar ?? "its credentials", error.message),
      // A sent piece is a platform call that worked; the rest goes to the configured observer.
      observer: {
        onSending: (gateway) => options.observer?.onSending?.(gateway),
        onSent: (gateway, outcome, seconds) => {
          if (outcome === "sent") this.platformCallSucceeded(gateway);
          options.observer?.onSent?.(gateway, outcome, seconds);
        },
      },
    });
    this.#parts = {
      runs: options.runs,
      store: options.store,
      registry: options.registry,
      threads: new Threads(),
      sender,
      previews,
      logger: this.logger,
      loggerFor: (g) => this.loggerFor(g),
      entryOptions: (name) => this.#entries.get(name) ?? {},
      track: (work) => this.#track(work),
      stopping: () => this.#stopping,
      fence: (state) => this.#ownership.fence(state),
      forget: (state) => this.#ownership.forget(state),
      claim: (gateway, thread) => this.#ownership.claim(gateway, thread),
    };
    this.#turns = new Turns(this.#parts, this.busyReply);
    this.#gate = new SenderGate(options.store);
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
    this.#approvals = new Approvals(this.#parts, this.#turns, {
      channel: options.agent.approvals?.channel ?? "cli",
      expiresAfterMs:
        expiresAfterSeconds !== undefined ? expiresAfterSeconds * 1000 : DEFAULT_APPROVAL_EXPIRY_MS,
    });
    this.#policy = new BusyPolicy(this.#parts, this.#turns, this.#approvals, {
      policy,
      maxQueueDepth: depth,
    });
    this.#ownership = new Ownership(this.#parts, this.#coordination, {
      adopt: (gateway, thread) => this.#adopt(gateway, thread),
      onMessage: (state, msg) => this.#policy.onMessage(state, msg),
    });
    if (this.#coordination.shared) this.#parts.threads.afterEach = (state) => this.#ownership.settle(state);
  }

  /** Recovers what a previous process left, then starts every gateway, the outbox sender and the upkeep tasks. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    if (this.#options.subscribeSuspensions ?? true) {
      this.#unsubscribe = this.#options.runs.onSuspended(
        (run, pending) => void this.handleSuspension(run, pending),
      );
    }
    const ownsRun = this.#options.ownsRun ?? (() => true);
    const shared = this.#coordination.shared;
    if (!shared) {
      this.#recovered = recover(this.#parts, this.#turns, this.#approvals, {
        bootId: this.#bootId,
        ownsRun,
      }).then((known) => {
        for (const id of known) this.#known.add(id);
      });
      await this.#recovered;
    } else {
      this.#unsubscribeCluster = this.#coordination.subscribe((m) => this.#onCluster(m));
      const unlost = this.#coordination.onThreadsLost((keys) => this.#ownership.lost(keys));
      const unsubscribe = this.#unsubscribeCluster;
      this.#unsubscribeCluster = () => {
        unsubscribe();
        unlost();
      };
      // Threads nobody holds that have work (a previous process of any instance left it).
      this.#recovered = this.#ownership.sweep();
      await this.#recovered;
      this.scheduler.every("session:sweep", this.#options.sweepMs ?? 1000, () => this.#ownership.sweep());
      this.#expireEvery();
    }
    for (const gateway of this.#options.registry.list()) {
      if (shared && holdsConnection(gateway)) continue; // started by the leader only
      await this.#startGateway(gateway);
    }
    this.#stopLeading = this.#coordination.lead("session", {
      onLead: () => this.#lead(),
      onLose: () => this.#unlead(),
    });
    const retention = { ...DEFAULT_RETENTION, ...this.#options.retention };
    this.scheduler.every("session:prune", retention.intervalMs, () =>
      pruneOnce(this.#options.store, retention, this.logger).then(() => {}),
    );
  }

  /**
   * This instance leads (always, for one instance): it holds the platform connections, sends the
   * outbox, expires approvals (one instance; several each expire their own), and (shared) continues
   * runs that are not gateway turns and asks open requests again.
   */
  async #lead(): Promise<void> {
    if (this.#stopping) return;
    this.#leading = true;
    if (this.#coordination.shared) {
      this.logger.info({ bootId: this.#bootId }, "this instance leads: platform connections and the outbox");
      await recover(this.#parts, this.#turns, this.#approvals, {
        bootId: this.#bootId,
        ownsRun: this.#options.ownsRun ?? (() => true),
        threads: "none",
      });
      for (const gateway of this.#options.registry.list()) {
        if (holdsConnection(gateway)) await this.#startGateway(gateway);
      }
      // A lost announcement is found within a second.
      this.scheduler.every("session:outbox-poll", 1000, async () => this.#parts.sender.wake());
    }
    this.#parts.sender.start();
    if (!this.#coordination.shared) this.#expireEvery();
  }

  /**
   * The periodic expiry of approval requests: on the leader for one instance; on every instance of
   * several, each for the threads it holds or can take (a thread held elsewhere is its holder's).
   */
  #expireEvery(): void {
    this.scheduler.every("session:approval-expiry", 30_000, () => this.#approvals.expireDue().then(() => {}));
  }

  async #unlead(): Promise<void> {
    if (!this.#leading) return;
    this.#leading = false;
    this.logger.warn({ bootId: this.#bootId }, "this instance no longer leads; another takes over");
    this.scheduler.cancel("session:outbox-poll");
    await this.#parts.sender.stop();
    for (const gateway of this.#options.registry.list()) {
      if (!holdsConnection(gateway)) continue;
      try {
        await gateway.stop();
      } catch (err) {
        this.loggerFor(gateway).error({ err }, "gateway failed to stop cleanly");
      }
    }
  }

  async #startGateway(gateway: Gateway): Promise<void> {
    await gateway.start(this.#contextFor(gateway));
    this.loggerFor(gateway).info({ gateway: gateway.name }, "gateway started");
  }

  /** Takes the stored state of one thread into this instance. */
  async #adopt(gateway: string, thread: string): Promise<void> {
    await recover(this.#parts, this.#turns, this.#approvals, {
      bootId: this.#bootId,
      ownsRun: this.#options.ownsRun ?? (() => true),
      threads: { gateway, thread },
      shared: false,
    });
  }

  #onCluster(message: ClusterMessage): void {
    if (message.kind === "outbox") {
      if (this.#leading) this.#parts.sender.wake(true);
      return;
    }
    if (message.kind !== "thread" || !this.#options.registry.get(message.gateway)) return;
    this.#track(this.#ownership.poke(message.gateway, message.thread));
  }

  /**
   * Stops taking new turns, lets running turns finish and commit (bounded by `drainMs`), sends
   * what is due, then stops the sender, the scheduler and the gateways. Messages recorded but not
   * run stay in the inbox and run after the next start.
   */
  stop(drainMs = 10_000): Promise<void> {
    this.#stopped ??= this.#stop(drainMs);
    return this.#stopped;
  }

  async #stop(drainMs: number): Promise<void> {
    this.#stopping = true;
    this.#unsubscribe?.();
    this.#unsubscribeCluster?.();
    await this.#options.runs.drain(drainMs);
    await this.#settle(Math.min(drainMs, 5_000));
    await this.#parts.sender.stop();
    await this.#parts.previews.closeAll();
    this.scheduler.stopAll();
    await this.#stopLeading?.();
    for (const gateway of this.#options.registry.list()) {
      try {
        await gateway.stop();
      } catch (err) {
        this.loggerFor(gateway).error({ err }, "gateway failed to stop cleanly");
      }
    }
  }

  /**
   * A platform rejected a gateway's credentials (a revoked or wrong token). Logs one error naming the
   * variable to fix, holds the gateway's outbox pieces (they stay pending for after the fix), cancels
   * its tasks and stops it; the rest of the service keeps running. Repeats are ignored.
   */
  credentialsRejected(gateway: string, envVar: string, detail: string): void {
    const g = this.#options.registry.get(gateway);
    if (!g || this.#halted.has(g.name)) return;
    const reason = `credentials rejected by ${g.type}: check ${envVar} (${detail})`;
    this.#halted.set(g.name, reason);
    this.#parts.sender.hold(g.name);
    const logger = this.loggerFor(g);
    logger.error({ gateway: g.name, envVar }, reason);
    this.scheduler.cancelGateway(g.name);
    this.#track(g.stop().catch((err: unknown) => logger.error({ err }, "gateway failed to stop cleanly")));
  }

  /** The platform sent `gateway` something (see GatewayContext.heard). */
  heard(gateway: string): void {
    this.#lastInboundAt.set(gateway, Date.now());
  }

  /** A call of `gateway` to its platform worked (see GatewayContext.platformCallSucceeded). */
  platformCallSucceeded(gateway: string): void {
    this.#lastPlatformCallAt.set(gateway, Date.now());
  }

  /** A gateway re-established its platform connection after losing it: told to the observer. */
  reconnected(gateway: string): void {
    this.#options.observer?.onReconnected?.(gateway);
  }

  /** A sent piece the platform reports undelivered: dead, or (with a wait) pending again; see GatewayContext.undelivered. */
  async undelivered(
    gateway: string,
    thread: string,
    platformId: string,
    detail: string,
    retryAfterMs?: number,
  ): Promise<boolean> {
    const retry =
      retryAfterMs === undefined
        ? undefined
        : {
            at: Date.now() + retryAfterMs,
            maxAttempts: this.#options.outbox?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
          };
    const marked = await this.#options.store.outbox.markUndelivered(
      gateway,
      thread,
      platformId,
      detail,
      retry,
    );
    // The sender sets its timer from the earliest due piece: a reopened one must be counted.
    if (marked && retry) this.#parts.sender.wake();
    // Dead for good: logged once (a second report of the same status finds nothing sent: marked false).
    if (marked && !retry) {
      const g = this.#options.registry.get(gateway);
      (g ? this.loggerFor(g) : this.logger).error(
        { gateway, thread, platformMessageId: platformId, err: detail },
        "outbox piece dead-lettered: the platform reported it undelivered",
      );
    }
    return marked;
  }

  /** Every registered gateway: running, or stopped with the reason. */
  status(): Record<string, GatewayStatus> {
    const out: Record<string, GatewayStatus> = {};
    const now = Date.now();
    const age = (at: number | undefined) => (at === undefined ? undefined : Math.max(0, (now - at) / 1000));
    for (const g of this.#options.registry.list()) {
      const reason = this.#halted.get(g.name);
      const inbound = age(this.#lastInboundAt.get(g.name));
      const call = age(this.#lastPlatformCallAt.get(g.name));
      out[g.name] = {
        ...(reason === undefined ? { state: "running" as const } : { state: "stopped" as const, reason }),
        ...(inbound !== undefined ? { lastInboundAgeSeconds: inbound } : {}),
        ...(call !== undefined ? { lastPlatformCallAgeSeconds: call } : {}),
      };
    }
    return out;
  }

  /** The logger of one gateway, `gateway-<type>`. */
  loggerFor(gateway: Gateway): Logger {
    let logger = this.#gatewayLoggers.get(gateway.name);
    if (!logger) {
      logger = gatewayLogger(gateway.type, this.#options.loggers ?? {});
      this.#gatewayLoggers.set(gateway.name, logger);
    }
    return logger;
  }

  /** Messages waiting behind a running turn, per gateway (threads this instance holds). */
  queueDepths(): Record<string, number> {
    const depths: Record<string, number> = {};
    for (const state of this.#parts.threads.all())
      depths[state.gateway] = (depths[state.gateway] ?? 0) + state.queue.length;
    return depths;
  }

  snapshot(gateway: string, thread: string): ThreadSnapshot {
    const state = this.#parts.threads.peek(gateway, thread);
    if (!state) return { running: false, queued: 0, steered: 0 };
    return {
      running: state.active !== undefined,
      ...(state.active ? { phase: state.active.phase } : {}),
      queued: state.queue.length,
      steered: state.active?.steered.length ?? 0,
      ...(state.pendingRequestId ? { pendingRequestId: state.pendingRequestId } : {}),
    };
  }

  /** Resolves once no turn is running, nothing runnable is queued and the outbox has nothing due (suspended turns wait for a human). */
  async idle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await Promise.allSettled([...this.#inflight, ...this.#parts.threads.pending()]);
      await this.#parts.sender.settled();
      const busy = [...this.#parts.threads.all()].some(
        (s) => s.active?.phase === "running" || (!s.active && s.queue.length > 0),
      );
      const due = await this.#parts.sender.hasDue();
      if (!busy && !due && this.#inflight.size === 0) return;
      if (Date.now() > deadline) throw new Error(`GatewaySession.idle: still busy after ${timeoutMs} ms`);
      if (due) this.#parts.sender.wake();
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  // ---- inbound --------------------------------------------------------------------------

  /**
   * Durable ingest: records (or finds a duplicate), then applies the thread's policy once recovery has run.
   * `operator: true` (a schedule's tick, written by the project's owner) skips sender access.
   */
  async deliver(
    inbound: Inbound & { gateway: string },
    options?: { operator?: boolean },
  ): Promise<DeliverResult> {
    const gateway = this.#options.registry.get(inbound.gateway);
    if (!gateway) {
      throw new AgentsvcError(
        "gateway_not_registered",
        `deliver: no gateway "${inbound.gateway}" is registered`,
        500,
      );
    }
    checkInbound(inbound);
    this.heard(gateway.name);
    const origin = originOf(inbound, gateway.name);
    const attributes = { "agentsvc.gateway": gateway.name, "agentsvc.gateway.type": gateway.type };
    // The record keeps the inbound span's trace context: the turn and the reply continue its trace.
    const result = await inSpan(
      `gateway.inbound ${gateway.name}`,
      { kind: "CONSUMER", attributes, parent: "active" },
      async (span) => {
        const traceparent = span.traceparent;
        if (traceparent) origin.traceparent = traceparent;
        const record = {
          gateway: gateway.name,
          dedupKey: inbound.dedupKey,
          thread: inbound.thread,
          text: inbound.text,
          origin,
          ...(inbound.attachments?.length ? { attachments: inbound.attachments } : {}),
        };
        const entry = this.#entries.get(gateway.name);
        const access = entry?.access;
        const media = mediaOutcome(inbound, entry?.media);
        const accepted =
          (restricts(access) && !options?.operator) || media
            ? await this.#acceptChecked(
                gateway,
                inbound,
                record,
                options?.operator ? undefined : access,
                media,
              )
            : await this.#options.store.inbox.accept(record);
        span.setAttribute(
          "agentsvc.inbound.outcome",
          !accepted.accepted ? "duplicate" : "refused" in accepted ? "refused" : "accepted",
        );
        if ("refused" in accepted) span.setAttribute("agentsvc.inbound.refused", accepted.refused);
        return accepted;
      },
    );
    this.#options.observer?.onInbound?.(gateway.name, result.accepted ? "accepted" : "duplicate");
    if (!result.accepted) return result;
    if ("refused" in result) {
      this.#parts.sender.wake();
      return { accepted: true, id: result.id };
    }
    fault("after-record");
    const msg: QueuedMessage = {
      inboxId: result.id,
      text: inbound.text,
      origin,
      ...(inbound.attachments?.length ? { attachments: inbound.attachments } : {}),
    };
    // Held until recovery has run, and never scheduled twice (recovery may have found it too).
    this.#track(
      (this.#recovered ?? Promise.resolve()).then(async () => {
        if (this.#known.has(msg.inboxId)) return;
        if (!(await this.#ownership.claim(gateway.name, inbound.thread))) {
          // Another instance runs this thread: it takes the message from the store.
          await this.#coordination.publish({ kind: "thread", gateway: gateway.name, thread: inbound.thread });
          return;
        }
        return this.#parts.threads.with(gateway.name, inbound.thread, (state) => {
          if (state.taken.has(msg.inboxId)) return;
          // Several instances: older messages of the thread may have been recorded elsewhere and
          // not announced yet; they go first, in the order they were recorded (this one among them).
          if (this.#coordination.shared) return this.#ownership.takeFresh(state);
          return this.#policy.onMessage(state, msg);
        });
      }),
    );
    return result;
  }

  /**
   * Records the message and checks its sender in one transaction: a refused one is rejected with
   * its answer (if any) together, never left queued for recovery to run.
   */
  async #acceptChecked(
    gateway: Gateway,
    inbound: Inbound,
    record: Parameters<SessionStore["inbox"]["accept"]>[0],
    access: SenderAccessOptions | undefined,
    media?: { note?: string; skip: boolean },
  ): Promise<DeliverResult | { accepted: true; id: number; refused: string }> {
    const store = this.#options.store;
    const outcome = await store.transaction(async () => {
      const accepted = await store.inbox.accept(record);
      if (!accepted.accepted) return accepted;
      const verdict = restricts(access)
        ? await this.#gate.check(
            gateway.name,
            inbound,
            access as SenderAccessOptions,
            Date.now(),
            this.#entries.get(gateway.name),
          )
        : { admitted: true as const };
      if (verdict.admitted) {
        if (!media) return accepted;
        // Attachments the entry does not take in: one short answer with the record, and no turn
        // when nothing else is left (an uncaptioned photo on a text-only entry).
        if (media.note) {
          const idem = `${gateway.name}:in${accepted.id}:media`;
          const pieces = textPieces(gateway, inbound.thread, media.note, idem, record.origin.meta);
          await store.outbox.enqueue(traced(pieces, record.origin.traceparent));
        }
        if (!media.skip) return accepted;
        await store.inbox.markDone(accepted.id, "done");
        return { ...accepted, refused: "media", answered: media.note !== undefined };
      }
      await store.inbox.markDone(accepted.id, "rejected");
      if (verdict.reply) {
        const pieces = refusalPieces(gateway, accepted.id, inbound.thread, verdict.reply, record.origin);
        await store.outbox.enqueue(traced(pieces, record.origin.traceparent));
      }
      return { ...accepted, refused: verdict.reason, answered: verdict.reply !== undefined };
    });
    if ("refused" in outcome && outcome.refused !== "media") {
      this.loggerFor(gateway).info(
        {
          sender: inbound.author.id,
          reason: outcome.refused,
          answered: outcome.answered,
          inboxId: outcome.id,
        },
        "inbound message refused by sender access",
      );
    }
    return outcome;
  }

  // ---- approvals ------------------------------------------------------------------------

  /** Called when a run suspends on an approval. Idempotent per run. */
  async handleSuspension(run: SuspendedRun, pending: PendingApproval): Promise<void> {
    if (this.#stopping) return;
    const work = this.#approvals.onSuspended(run, pending);
    this.#track(work);
    await work;
  }

  /** A decision from a gateway; `decidedBy` is the platform author id. */
  decide(requestId: string, decision: DecisionInput, decidedBy: string): Promise<DecideResult> {
    const work = this.#decide(requestId, decision, decidedBy);
    this.#track(work);
    return work;
  }

  async #decide(requestId: string, decision: DecisionInput, decidedBy: string): Promise<DecideResult> {
    if (this.#coordination.shared) {
      const rec = await this.#options.store.interactions.get(requestId);
      // The run waits at rest, or is being let go by the instance that ran it: take its thread.
      if (rec && !(await this.#ownership.claimSoon(rec.gateway, rec.thread))) {
        return {
          ok: false,
          code: "busy",
          message: `the thread of "${requestId}" is running on another instance; try again shortly`,
        };
      }
    }
    return this.#approvals.decide(requestId, decision, decidedBy);
  }

  /**
   * Rejects expired requests now (the session also does this every 30 s); several instances: those
   * of threads this instance holds or can take, the rest by their holders.
   */
  expireApprovals(now?: number): Promise<number> {
    return this.#approvals.expireDue(now);
  }

  /** An interaction request with its tool and arguments (from the suspended run), or undefined. */
  interaction(requestId: string): Promise<InteractionView | undefined> {
    return interactionView(this.#options.store, requestId);
  }

  // ---- plumbing -------------------------------------------------------------------------

  #contextFor(gateway: Gateway) {
    return contextFor(gateway, {
      session: this,
      store: this.#options.store,
      logger: this.loggerFor(gateway),
      scheduler: this.scheduler,
      env: this.#options.env ?? process.env,
      ...(this.#options.publicBaseUrl ? { publicBaseUrl: this.#options.publicBaseUrl } : {}),
    });
  }

  async #settle(timeoutMs: number): Promise<void> {
    const timeout = new Promise((r) => setTimeout(r, timeoutMs).unref());
    await Promise.race([
      (async () => {
        await Promise.allSettled([...this.#inflight, ...this.#parts.threads.pending()]);
        await this.#parts.sender.settled();
      })(),
      timeout,
    ]);
  }

  #track(work: Promise<unknown>): void {
    const p = work.catch((err) => {
      this.logger.error({ err }, "session work failed");
    });
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p));
  }
}

/** The answer and the skip for a message with attachments; undefined when it has none to answer for. */
function mediaOutcome(
  inbound: Inbound,
  media: MediaOptions | undefined,
): { note?: string; skip: boolean } | undefined {
  if (!inbound.attachments?.length) return undefined;
  const note = unsupportedNote(inbound.attachments, media);
  const skip = nothingToRun(inbound.text, inbound.attachments);
  if (!note && !skip) return undefined;
  return { ...(note ? { note } : {}), skip };
}
