// The GatewaySession: exactly one per project, bound to the root agent. It records inbound gateway
// messages durably, applies the busy policy per thread, queues replies in the durable outbox, and
// carries approvals between the RunManager and the gateways. Start recovers first; stop drains
// running turns before anything is stopped.
import { randomBytes } from "node:crypto";
import { AgentsvcError, type PendingApproval, type SuspendedRun, fault } from "@agentsvc/agent-core";
import type { Logger } from "pino";
import { SenderGate } from "./access.js";
import { recordInbound } from "./record-inbound.js";
import { SessionWork } from "./session-work.js";
import { queueDepthsOf, snapshotOf } from "./thread-snapshot.js";
import { markUndelivered } from "./undelivered.js";
import { Approvals } from "./approvals.js";
import { contextFor } from "./context.js";
import { type Coordination, localCoordination } from "./coordination.js";
import type {
  DecideResult,
  DecisionInput,
  DeliverResult,
  Gateway,
  GatewayEntryOptions,
  Inbound,
  InteractionView,
} from "./gateway.js";
import { GatewayHealth } from "./gateway-health.js";
import { checkInbound, originOf } from "./inbound.js";
import { interactionView } from "./interaction-view.js";
import { gatewayLogger, sessionLogger } from "./loggers.js";
import { DEFAULT_MAX_ATTEMPTS } from "./outbox-options.js";
import { sessionSender } from "./session-sender.js";
import { Ownership } from "./ownership.js";
import type { SessionParts } from "./parts.js";
import { BusyPolicy, type SessionPolicy } from "./policy.js";
import { DEFAULT_RETENTION, pruneOnce } from "./retention.js";
import { Scheduler } from "./scheduler.js";
import { holdsConnection, SessionLead, stopGateways } from "./session-lead.js";
import { dispatchRecorded, recordAnnounceFor } from "./dispatch.js";
import type { GatewaySessionOptions, GatewayStatus, ThreadSnapshot } from "./session-options.js";
import { DEFAULT_THREAD_HOLD_MS, sessionSettings } from "./session-options.js";
import { DEFAULT_STREAM_UPDATE_TIMEOUT_MS, Previews } from "./streaming.js";
import { type QueuedMessage, type ThreadState, Threads } from "./threads.js";
import { Turns } from "./turns.js";

export type { SessionPolicy };
export { gatewayThreadId } from "./threads.js";
export {
  DEFAULT_BUSY_REPLY,
  type GatewayEntryRef,
  type GatewaySessionOptions,
  type GatewayStatus,
  type ThreadSnapshot,
} from "./session-options.js";

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
  readonly #lead: SessionLead;
  #stopLeading: (() => Promise<void>) | undefined;
  #unsubscribeCluster: (() => void) | undefined;
  readonly #entries: Map<string, GatewayEntryOptions>;
  readonly #gatewayLoggers = new Map<string, Logger>();
  readonly #health = new GatewayHealth();
  readonly #work: SessionWork;
  /** Inbox ids recovery scheduled: a message delivered while it ran is not queued twice. */
  readonly #known = new Set<number>();
  #recovered: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  #started = false;
  #stopping = false;
  #stopped: Promise<void> | undefined;

  constructor(options: GatewaySessionOptions) {
    const settings = sessionSettings(options);
    this.#entries = settings.entries;
    this.policy = settings.policy;
    this.maxQueueDepth = settings.maxQueueDepth;
    this.busyReply = settings.busyReply;
    this.#options = options;
    this.logger = sessionLogger(options.loggers ?? {});
    this.scheduler = options.scheduler ?? new Scheduler(this.logger);
    this.#work = new SessionWork(this.logger);
    this.#coordination = options.coordination ?? localCoordination;
    const coordination = this.#coordination;
    const previews = new Previews(
      options.store,
      (g) => this.loggerFor(g),
      options.streamUpdateTimeoutMs ?? DEFAULT_STREAM_UPDATE_TIMEOUT_MS,
    );
    const sender = sessionSender({
      previews,
      store: options.store,
      registry: options.registry,
      loggerFor: (g) => this.loggerFor(g),
      logger: this.logger,
      outbox: options.outbox,
      coordination,
      observer: options.observer,
      onCredentials: (gateway, error) =>
        this.credentialsRejected(gateway.name, error.envVar ?? "its credentials", error.message),
      platformCallSucceeded: (gateway) => this.platformCallSucceeded(gateway),
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
      fenced: (state, write) => this.#ownership.fenced(state, write),
      forget: (state) => this.#ownership.forget(state),
      claim: (gateway, thread) => this.#ownership.claim(gateway, thread),
    };
    this.#turns = new Turns(this.#parts, this.busyReply);
    this.#gate = new SenderGate(options.store);
    this.#approvals = new Approvals(this.#parts, this.#turns, {
      channel: settings.approvalChannel,
      expiresAfterMs: settings.approvalExpiresAfterMs,
    });
    this.#policy = new BusyPolicy(this.#parts, this.#turns, this.#approvals, {
      policy: settings.policy,
      maxQueueDepth: settings.maxQueueDepth,
    });
    const hooks = {
      adopt: (gateway: string, thread: string) => this.#lead.adopt(gateway, thread),
      onMessage: (state: ThreadState, msg: QueuedMessage) => this.#policy.onMessage(state, msg),
    };
    const held = { holdMs: options.threadHoldMs ?? DEFAULT_THREAD_HOLD_MS, maxHeld: settings.maxHeldThreads };
    this.#ownership = new Ownership(this.#parts, this.#coordination, hooks, held);
    this.#lead = new SessionLead({
      parts: this.#parts,
      turns: this.#turns,
      approvals: this.#approvals,
      coordination: this.#coordination,
      ownership: this.#ownership,
      scheduler: this.scheduler,
      bootId: this.#bootId,
      ownsRun: options.ownsRun ?? (() => true),
      startGateway: (gateway) => this.#startGateway(gateway),
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
    const shared = this.#coordination.shared;
    if (shared) this.#unsubscribeCluster = this.#lead.join();
    this.#recovered = this.#lead.recoverAtStart(this.#known);
    await this.#recovered;
    if (shared) this.#lead.upkeep(this.#options.sweepMs ?? 1000);
    for (const gateway of this.#options.registry.list()) {
      if (shared && holdsConnection(gateway)) continue; // started by the leader only
      await this.#startGateway(gateway);
    }
    this.#stopLeading = this.#coordination.lead("session", {
      onLead: () => this.#lead.lead(),
      onLose: () => this.#lead.unlead(),
    });
    const retention = { ...DEFAULT_RETENTION, ...this.#options.retention };
    this.scheduler.every("session:prune", retention.intervalMs, () =>
      pruneOnce(this.#options.store, retention, this.logger).then(() => {}),
    );
  }

  async #startGateway(gateway: Gateway): Promise<void> {
    await gateway.start(this.#contextFor(gateway));
    this.loggerFor(gateway).info({ gateway: gateway.name }, "gateway started");
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
    await this.#work.settle(this.#parts, Math.min(drainMs, 5_000));
    await this.#lead.stopSending();
    await this.#parts.previews.closeAll();
    this.scheduler.stopAll();
    await this.#stopLeading?.();
    await stopGateways(this.#parts, () => true);
  }

  /**
   * A platform rejected a gateway's credentials (a revoked or wrong token). Logs one error naming the
   * variable to fix, holds the gateway's outbox pieces (they stay pending for after the fix), cancels
   * its tasks and stops it; the rest of the service keeps running. Repeats are ignored.
   */
  credentialsRejected(gateway: string, envVar: string, detail: string): void {
    this.#health.reject(
      { parts: this.#parts, scheduler: this.scheduler, track: (work) => this.#track(work) },
      gateway,
      envVar,
      detail,
    );
  }

  /** The platform sent `gateway` something (see GatewayContext.heard). */
  heard(gateway: string): void {
    this.#health.heard(gateway);
  }

  /** A call of `gateway` to its platform worked (see GatewayContext.platformCallSucceeded). */
  platformCallSucceeded(gateway: string): void {
    this.#health.platformCallSucceeded(gateway);
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
    return markUndelivered(
      this.#parts,
      this.#options.outbox?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      { gateway, thread, platformId, detail, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
      this.logger,
    );
  }

  /** Every registered gateway: running, or stopped with the reason. */
  status(): Record<string, GatewayStatus> {
    return this.#health.status(this.#options.registry);
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
    return queueDepthsOf(this.#parts.threads);
  }

  snapshot(gateway: string, thread: string): ThreadSnapshot {
    return snapshotOf(this.#parts.threads, gateway, thread);
  }

  /** Resolves once no turn is running, nothing runnable is queued and the outbox has nothing due (suspended turns wait for a human). */
  idle(timeoutMs = 30_000): Promise<void> {
    return this.#work.idle(this.#parts, timeoutMs);
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
    const entry = this.#entries.get(gateway.name);
    const deps = { store: this.#options.store, gate: this.#gate, entry, logger: this.loggerFor(gateway) };
    const d = { parts: this.#parts, ownership: this.#ownership, coordination: this.#coordination };
    const announce = recordAnnounceFor(d, gateway.name, inbound.thread);
    const result = await recordInbound(deps, gateway, inbound, origin, options?.operator === true, announce);
    this.#options.observer?.onInbound?.(gateway.name, result.accepted ? "accepted" : "duplicate");
    if (!result.accepted) return result;
    if ("refused" in result) {
      this.#parts.sender.wake();
      return { accepted: true, id: result.id };
    }
    fault("after-record");
    // Announced to the thread's holder by the statement that recorded it: its holder takes it.
    if ("announced" in result && result.announced) return { accepted: true, id: result.id };
    const msg: QueuedMessage = {
      inboxId: result.id,
      text: inbound.text,
      origin,
      ...(inbound.attachments?.length ? { attachments: inbound.attachments } : {}),
    };
    // Held until recovery has run, and never scheduled twice (recovery may have found it too).
    const all = { ...d, policy: this.#policy, known: this.#known };
    this.#track(
      (this.#recovered ?? Promise.resolve()).then(() =>
        dispatchRecorded(all, gateway.name, inbound.thread, msg),
      ),
    );
    return result;
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
    const busy = await this.#lead.claimForDecision(requestId);
    if (busy) return busy;
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

  #track(work: Promise<unknown>): void {
    this.#work.track(work);
  }
}
