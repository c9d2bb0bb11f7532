// The GatewaySession: exactly one per project, bound to the root agent. It turns inbound gateway
// messages into turns, applies the busy policy per thread, sends replies back the way they came,
// and carries approvals between the RunManager and the gateways.
import { randomBytes } from "node:crypto";
import {
  type AgentDefinition,
  AgentsvcError,
  type PendingApproval,
  type RunHandle,
  type RunManagerApi,
  type RunOrigin,
  type SuspendedRun,
  type TurnResult,
} from "@agentsvc/agent-core";
import type { Logger } from "pino";
import { chunkText } from "./chunk-text.js";
import type {
  DecideResult,
  DecisionInput,
  DeliverResult,
  Gateway,
  GatewayContext,
  Inbound,
  InteractionRequest,
  InteractionView,
} from "./gateway.js";
import { describeRequest, matchDecisionText } from "./interaction.js";
import { gatewayLogger, type LoggerSource, sessionLogger } from "./loggers.js";
import type { GatewayRegistry } from "./registry.js";
import { Scheduler } from "./scheduler.js";
import { type InboxDoneStatus, isDecided, type SessionStore, type StoredInteraction } from "./store.js";

export type SessionPolicy = "reject" | "queue" | "steer" | "interrupt";
const POLICIES: readonly SessionPolicy[] = ["reject", "queue", "steer", "interrupt"];

export const DEFAULT_BUSY_REPLY =
  "I am still working on your previous message. Please wait for my reply, then send this again.";

export interface GatewayEntryRef {
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
  /** The root agent: its `gatewaySession` policy and its `approvals.channel`. */
  agent: Pick<AgentDefinition, "name" | "gatewaySession" | "approvals">;
  /** Configured channel-adapter entries; each must have a registered gateway (checked at build). */
  entries?: GatewayEntryRef[];
  loggers?: LoggerSource;
  env?: Readonly<Record<string, string | undefined>>;
  /** Shared scheduler; created when not given. */
  scheduler?: Scheduler;
  /** Subscribe to `runs.onSuspended` at start (default true). Set false if the server wires `handleSuspension` itself. */
  subscribeSuspensions?: boolean;
}

interface QueuedMessage {
  inboxId: number;
  text: string;
  origin: RunOrigin;
}

interface ThreadState {
  gateway: string;
  thread: string;
  threadId: string;
  active?: { inboxId: number; phase: "running" | "suspended"; origin: RunOrigin };
  queue: QueuedMessage[];
  /** Open interaction request on this thread, if any. */
  pendingRequestId?: string;
}

export interface ThreadSnapshot {
  running: boolean;
  phase?: "running" | "suspended";
  queued: number;
  pendingRequestId?: string;
}

/** The RunManager threadId of a gateway thread; one per (gateway, platform thread). */
export function gatewayThreadId(gateway: string, thread: string): string {
  return `gw:${gateway}:${thread}`;
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

  readonly #runs: RunManagerApi;
  readonly #store: SessionStore;
  readonly #registry: GatewayRegistry;
  readonly #agent: GatewaySessionOptions["agent"];
  readonly #loggers: LoggerSource;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #subscribe: boolean;
  readonly #threads = new Map<string, ThreadState>();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #gatewayLoggers = new Map<string, Logger>();
  readonly #deciding = new Set<string>();
  /** Turn work in flight (sends, store writes), so `idle()` can wait for it. */
  readonly #inflight = new Set<Promise<unknown>>();
  #unsubscribe: (() => void) | undefined;
  #started = false;
  #stopped = false;

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
    }
    this.policy = policy;
    this.maxQueueDepth = depth;
    this.busyReply = config.busyReply ?? DEFAULT_BUSY_REPLY;
    this.#runs = options.runs;
    this.#store = options.store;
    this.#registry = options.registry;
    this.#agent = options.agent;
    this.#loggers = options.loggers ?? {};
    this.#env = options.env ?? process.env;
    this.#subscribe = options.subscribeSuspensions ?? true;
    this.logger = sessionLogger(this.#loggers);
    this.scheduler = options.scheduler ?? new Scheduler(this.logger);
  }

  /** Starts every registered gateway, then replays unfinished inbound messages and open approvals. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    if (this.#subscribe) {
      this.#unsubscribe = this.#runs.onSuspended((run, pending) => {
        void this.handleSuspension(run, pending);
      });
    }
    for (const gateway of this.#registry.list()) {
      await gateway.start(this.#contextFor(gateway));
      this.loggerFor(gateway).info({ gateway: gateway.name }, "gateway started");
    }
    await this.#recover();
  }

  /** Stops gateways and the scheduler. Unfinished messages stay recorded and run after the next start. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#unsubscribe?.();
    this.scheduler.stopAll();
    for (const gateway of this.#registry.list()) {
      try {
        await gateway.stop();
      } catch (err) {
        this.loggerFor(gateway).error({ err }, "gateway failed to stop cleanly");
      }
    }
  }

  /** The logger of one gateway, `gateway-<type>`. */
  loggerFor(gateway: Gateway): Logger {
    let logger = this.#gatewayLoggers.get(gateway.name);
    if (!logger) {
      logger = gatewayLogger(gateway.type, this.#loggers);
      this.#gatewayLoggers.set(gateway.name, logger);
    }
    return logger;
  }

  snapshot(gateway: string, thread: string): ThreadSnapshot {
    const state = this.#threads.get(gatewayThreadId(gateway, thread));
    if (!state) return { running: false, queued: 0 };
    return {
      running: state.active !== undefined,
      ...(state.active ? { phase: state.active.phase } : {}),
      queued: state.queue.length,
      ...(state.pendingRequestId ? { pendingRequestId: state.pendingRequestId } : {}),
    };
  }

  /** Resolves once no turn is running, nothing runnable is queued and no send is pending (suspended turns wait for a human). */
  async idle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await Promise.allSettled([...this.#inflight, ...this.#locks.values()]);
      // A suspended thread waits for a human, so it does not count as busy here.
      const busy = [...this.#threads.values()].some(
        (s) => s.active?.phase === "running" || (!s.active && s.queue.length > 0),
      );
      if (!busy && this.#inflight.size === 0) return;
      if (Date.now() > deadline) throw new Error(`GatewaySession.idle: still busy after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  // ---- inbound --------------------------------------------------------------------------

  /** Durable ingest: records (or finds a duplicate), then applies the thread's policy. */
  async deliver(inbound: Inbound): Promise<DeliverResult> {
    const gateway = this.#registry.get(inbound.gateway);
    if (!gateway) {
      throw new AgentsvcError(
        "gateway_not_registered",
        `deliver: no gateway "${inbound.gateway}" is registered`,
        500,
      );
    }
    for (const key of ["dedupKey", "thread", "text"] as const) {
      if (typeof inbound[key] !== "string") {
        throw new AgentsvcError(
          "bad_inbound",
          `deliver (${inbound.gateway}): ${key}: expected a string (got ${typeof inbound[key]})`,
        );
      }
    }
    if (inbound.dedupKey === "" || inbound.thread === "") {
      throw new AgentsvcError(
        "bad_inbound",
        `deliver (${inbound.gateway}): dedupKey and thread must not be empty`,
      );
    }
    const origin: RunOrigin = {
      gateway: gateway.name,
      thread: inbound.thread,
      ...(inbound.meta ? { meta: inbound.meta } : {}),
    };
    const result = await this.#store.inbox.accept({
      gateway: gateway.name,
      dedupKey: inbound.dedupKey,
      thread: inbound.thread,
      text: inbound.text,
      origin,
    });
    if (!result.accepted) return result;
    const decidedBy = `${gateway.name}:${inbound.userDisplay ?? inbound.thread}`;
    this.#track(
      this.#withThread(gateway.name, inbound.thread, (state) =>
        this.#onMessage(state, { inboxId: result.id, text: inbound.text, origin }, decidedBy),
      ),
    );
    return result;
  }

  async #onMessage(state: ThreadState, msg: QueuedMessage, decidedBy: string): Promise<void> {
    if (this.#stopped) return;
    // A plain reply on a thread waiting for a decision is matched against the decisions first.
    if (state.pendingRequestId) {
      const rec = await this.#store.interactions.get(state.pendingRequestId);
      const match = rec && !isDecided(rec) ? matchDecisionText(msg.text, rec.allowedDecisions) : undefined;
      if (rec && match) {
        await this.#store.inbox.markDone(msg.inboxId, "done");
        const outcome = await this.#decideLocked(state, rec, match, decidedBy);
        if (!outcome.ok) this.loggerFor(this.#gw(state)).warn({ outcome }, "text decision not applied");
        return;
      }
    }
    if (!state.active) {
      await this.#startTurn(state, msg);
      return;
    }
    const caller = { userId: state.gateway };
    switch (this.policy) {
      case "reject":
        await this.#busy(state, msg);
        return;
      case "queue":
        if (state.queue.length >= this.maxQueueDepth) await this.#busy(state, msg);
        else state.queue.push(msg);
        return;
      case "steer":
        if (state.active.phase === "running" && this.#runs.steer(state.threadId, msg.text, caller)) {
          await this.#store.inbox.markDone(msg.inboxId, "done");
        } else if (state.queue.length >= this.maxQueueDepth) {
          await this.#busy(state, msg);
        } else {
          // Nothing to splice into (the run is suspended or just ended): it gets its own turn.
          state.queue.push(msg);
        }
        return;
      case "interrupt": {
        if (state.queue.length >= this.maxQueueDepth) {
          await this.#busy(state, msg);
          return;
        }
        state.queue.push(msg);
        if (state.active.phase === "running") {
          this.#runs.cancel(state.threadId, caller, "interrupted by a new message");
        } else if (state.pendingRequestId) {
          // A suspended run is rejected and cancelled; its continuation ends at the next checkpoint.
          const rec = await this.#store.interactions.get(state.pendingRequestId);
          if (rec && !isDecided(rec)) {
            await this.#decideLocked(
              state,
              rec,
              { decision: "reject", reason: "interrupted by a new message", cancelRun: true },
              "session:interrupt",
            );
          }
        }
        return;
      }
    }
  }

  async #busy(state: ThreadState, msg: QueuedMessage): Promise<void> {
    await this.#store.inbox.markDone(msg.inboxId, "rejected");
    await this.#sendText(state.gateway, state.thread, this.busyReply, msg.origin.meta);
  }

  // ---- turns ----------------------------------------------------------------------------

  async #startTurn(state: ThreadState, msg: QueuedMessage): Promise<void> {
    if (this.#stopped) return;
    await this.#store.inbox.markRunning(msg.inboxId);
    state.active = { inboxId: msg.inboxId, phase: "running", origin: msg.origin };
    let handle: RunHandle;
    try {
      handle = await this.#startRun(state, msg);
    } catch (err) {
      this.loggerFor(this.#gw(state)).error({ err, threadId: state.threadId }, "could not start a turn");
      await this.#store.inbox.markDone(msg.inboxId, "failed");
      await this.#sendText(state.gateway, state.thread, failureText(err), msg.origin.meta);
      await this.#finish(state);
      return;
    }
    this.#follow(state, handle);
  }

  async #startRun(state: ThreadState, msg: QueuedMessage): Promise<RunHandle> {
    const input = {
      input: msg.text,
      threadId: state.threadId,
      userId: state.gateway,
      conversationId: state.thread,
      origin: msg.origin,
      // Marking done as soon as the turn is persisted is what keeps a crash from running it twice.
      onPersisted: async (result: TurnResult) => {
        if (this.#stopped || result.status === "suspended") return;
        await this.#store.inbox.markDone(msg.inboxId, result.status === "failed" ? "failed" : "done");
      },
    };
    // The previous run of this thread may still be settling its bookkeeping; retry briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        return this.#runs.start(input);
      } catch (err) {
        if (!(err instanceof AgentsvcError && err.code === "thread_busy") || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  }

  #follow(state: ThreadState, handle: RunHandle): void {
    this.#track(
      handle.done.then((result) =>
        this.#withThread(state.gateway, state.thread, (s) => this.#onTurnEnd(s, result)),
      ),
    );
  }

  async #onTurnEnd(state: ThreadState, result: TurnResult): Promise<void> {
    if (this.#stopped || !state.active) return;
    const active = state.active;
    if (result.status === "suspended") {
      active.phase = "suspended";
      return;
    }
    const status: InboxDoneStatus = result.status === "failed" ? "failed" : "done";
    await this.#store.inbox.markDone(active.inboxId, status);
    if (result.status === "completed") {
      await this.#sendText(state.gateway, state.thread, result.text, active.origin.meta);
    } else if (result.status === "failed") {
      await this.#sendText(state.gateway, state.thread, failureText(result.error), active.origin.meta);
    }
    await this.#finish(state);
  }

  async #finish(state: ThreadState): Promise<void> {
    state.active = undefined;
    state.pendingRequestId = undefined;
    const next = state.queue.shift();
    if (next) await this.#startTurn(state, next);
  }

  async #sendText(
    gatewayKey: string,
    thread: string,
    text: string,
    meta?: Record<string, unknown>,
  ): Promise<void> {
    const gateway = this.#registry.get(gatewayKey);
    if (!gateway) {
      this.logger.error({ gateway: gatewayKey, thread }, "reply dropped: gateway is not registered");
      return;
    }
    const pieces = chunkText(text, gateway.messageLimit);
    if (pieces.length === 0) {
      this.loggerFor(gateway).info({ thread }, "turn produced no text; nothing sent");
      return;
    }
    for (const piece of pieces) {
      try {
        await gateway.send(thread, piece, meta ? { meta } : {});
      } catch (err) {
        this.loggerFor(gateway).error({ err, thread }, "sending a reply failed");
        return;
      }
    }
  }

  // ---- approvals ------------------------------------------------------------------------

  /**
   * Called when a run suspends on an approval. Gateway runs are asked on their own thread; other
   * runs ask the agent's approval channel (`approvals.channel`, default `cli`). Idempotent per run.
   */
  async handleSuspension(run: SuspendedRun, pending: PendingApproval): Promise<void> {
    if (this.#stopped) return;
    const target = this.#targetFor(run);
    if (!target) {
      this.logger.error(
        { threadId: run.options.threadId, channel: this.#approvalChannel() },
        `approval channel "${this.#approvalChannel()}" is not registered; the run stays suspended (resumable through /resume)`,
      );
      return;
    }
    const { gateway, thread, meta } = target;
    const work = this.#withThread(gateway.name, thread, async (state) => {
      const open = await this.#store.interactions.getOpenByThread(gateway.name, thread);
      if (open && open.threadId === run.options.threadId) {
        state.pendingRequestId = open.requestId;
        return; // already asked (the server and the session both reported it)
      }
      const request: InteractionRequest = {
        requestId: `req_${randomBytes(16).toString("base64url")}`,
        threadId: run.options.threadId,
        gateway: gateway.name,
        thread,
        allowedDecisions: pending.allowedDecisions,
        toolName: pending.toolName,
        arguments: pending.arguments,
        prompt: describeRequest(pending.toolName, pending.arguments, pending.allowedDecisions),
        createdAt: Date.now(),
        ...(meta ? { meta } : {}),
      };
      await this.#store.interactions.save({
        requestId: request.requestId,
        threadId: request.threadId,
        gateway: request.gateway,
        thread: request.thread,
        allowedDecisions: request.allowedDecisions,
        prompt: request.prompt,
        createdAt: request.createdAt,
      });
      state.pendingRequestId = request.requestId;
      if (state.active && state.threadId === run.options.threadId) state.active.phase = "suspended";
      await this.#render(gateway, request);
    });
    this.#track(work);
    await work;
  }

  async #render(gateway: Gateway, request: InteractionRequest): Promise<void> {
    try {
      await gateway.requestDecision(request);
    } catch (err) {
      this.loggerFor(gateway).error(
        { err, requestId: request.requestId },
        "rendering the approval request failed",
      );
    }
  }

  #approvalChannel(): string {
    return this.#agent.approvals?.channel ?? "cli";
  }

  #targetFor(
    run: SuspendedRun,
  ): { gateway: Gateway; thread: string; meta?: Record<string, unknown> } | undefined {
    const origin = run.options.origin;
    if (origin) {
      const gateway = this.#registry.get(origin.gateway);
      if (gateway) return { gateway, thread: origin.thread, ...(origin.meta ? { meta: origin.meta } : {}) };
    }
    const channel = this.#registry.get(this.#approvalChannel());
    return channel ? { gateway: channel, thread: run.options.threadId } : undefined;
  }

  /** A decision from a gateway (button, card, prompt, http) or a matched text reply. */
  async decide(requestId: string, decision: DecisionInput, decidedBy: string): Promise<DecideResult> {
    const rec = await this.#store.interactions.get(requestId);
    if (!rec) return { ok: false, code: "not_found", message: `no interaction request "${requestId}"` };
    let outcome: DecideResult | undefined;
    const work = this.#withThread(rec.gateway, rec.thread, async (state) => {
      outcome = await this.#decideLocked(state, rec, decision, decidedBy);
    });
    this.#track(work);
    await work;
    return outcome ?? { ok: false, code: "not_found", message: `no interaction request "${requestId}"` };
  }

  async #decideLocked(
    state: ThreadState,
    stale: StoredInteraction,
    input: DecisionInput,
    decidedBy: string,
  ): Promise<DecideResult> {
    const requestId = stale.requestId;
    const rec = (await this.#store.interactions.get(requestId)) ?? stale;
    if (isDecided(rec) || this.#deciding.has(requestId)) {
      return {
        ok: false,
        code: "already_decided",
        message: `interaction request "${requestId}" was already decided`,
      };
    }
    if (!rec.allowedDecisions.includes(input.decision)) {
      return {
        ok: false,
        code: "bad_decision",
        message: `decision: expected one of ${rec.allowedDecisions.join(", ")} (got "${String(input.decision)}")`,
      };
    }
    const suspended = await this.#store.runStore.get(rec.threadId);
    if (!suspended) {
      return {
        ok: false,
        code: "not_found",
        message: `the run of "${requestId}" is no longer waiting for a decision`,
      };
    }
    const owner = { userId: suspended.options.userId };
    this.#deciding.add(requestId);
    try {
      const decision = {
        decision: input.decision,
        ...(input.reason !== undefined ? { reason: input.reason } : {}),
        ...(input.editedData !== undefined ? { editedData: input.editedData } : {}),
      };
      const handle = await this.#runs.resume(rec.threadId, decision, owner);
      await this.#store.interactions.resolve(requestId, { ...decision, decidedBy });
      if (input.cancelRun)
        this.#runs.cancel(rec.threadId, owner, input.reason ?? "cancelled at the approval prompt");
      if (state.pendingRequestId === requestId) state.pendingRequestId = undefined;
      if (state.active && state.threadId === rec.threadId) {
        state.active.phase = "running";
        this.#follow(state, handle);
      } else {
        // Not a gateway turn (approval-channel run): the continuation persists itself; just log its end.
        this.#track(
          handle.done.then((r) =>
            this.logger.info({ threadId: rec.threadId, status: r.status }, "approved run ended"),
          ),
        );
      }
      return { ok: true, requestId, decision: input.decision };
    } catch (err) {
      if (err instanceof AgentsvcError && err.code === "not_found") {
        return { ok: false, code: "already_decided", message: err.message };
      }
      if (err instanceof AgentsvcError && err.status === 400) {
        return { ok: false, code: "bad_decision", message: err.message };
      }
      throw err;
    } finally {
      this.#deciding.delete(requestId);
    }
  }

  /** An interaction request with its tool and arguments (from the suspended run), or undefined. */
  async interaction(requestId: string): Promise<InteractionView | undefined> {
    const rec = await this.#store.interactions.get(requestId);
    if (!rec) return undefined;
    const run = await this.#store.runStore.get(rec.threadId);
    return {
      requestId: rec.requestId,
      threadId: rec.threadId,
      gateway: rec.gateway,
      thread: rec.thread,
      allowedDecisions: rec.allowedDecisions,
      toolName: run?.pendingCall.name ?? "",
      arguments: run?.pendingCall.arguments ?? null,
      prompt: rec.prompt,
      createdAt: rec.createdAt,
      status: isDecided(rec) ? "decided" : "open",
    };
  }

  // ---- restart --------------------------------------------------------------------------

  /**
   * Replays what a previous process left: `queued` records run in order; a `running` record whose
   * run is suspended (its checkpoint is in the RunStore) waits for its decision again (the request
   * is rendered again); a `running` record without one never reached `onPersisted`, so its turn
   * was not persisted and it runs again.
   */
  async #recover(): Promise<void> {
    const records = await this.#store.inbox.unfinished();
    const toRender: { gateway: Gateway; request: InteractionRequest }[] = [];
    for (const rec of records) {
      const gateway = this.#registry.get(rec.gateway);
      if (!gateway) {
        this.logger.warn(
          { id: rec.id, gateway: rec.gateway },
          "unfinished message of an unregistered gateway left as is",
        );
        continue;
      }
      const state = this.#state(rec.gateway, rec.thread);
      const origin = rec.origin ?? { gateway: rec.gateway, thread: rec.thread };
      const msg: QueuedMessage = { inboxId: rec.id, text: rec.text, origin };
      if (rec.status === "running" && !state.active) {
        const suspended = await this.#store.runStore.get(state.threadId);
        if (suspended) {
          state.active = { inboxId: rec.id, phase: "suspended", origin };
          const open = await this.#store.interactions.getOpenByThread(rec.gateway, rec.thread);
          if (open) {
            state.pendingRequestId = open.requestId;
            const view = await this.interaction(open.requestId);
            if (view)
              toRender.push({ gateway, request: { ...view, ...(origin.meta ? { meta: origin.meta } : {}) } });
          } else {
            const pending = await this.#runs.pending(state.threadId, { userId: suspended.options.userId });
            if (pending) await this.handleSuspension(suspended, pending);
          }
          continue;
        }
        state.queue.unshift(msg);
        continue;
      }
      state.queue.push(msg);
    }
    for (const { gateway, request } of toRender) await this.#render(gateway, request);
    for (const state of this.#threads.values()) {
      if (!state.active && state.queue.length > 0) {
        this.#track(
          this.#withThread(state.gateway, state.thread, (s) => (s.active ? undefined : this.#finish(s))),
        );
      }
    }
  }

  // ---- plumbing -------------------------------------------------------------------------

  #contextFor(gateway: Gateway): GatewayContext {
    const logger = this.loggerFor(gateway);
    return {
      // The gateway key comes from the registry, never from what the adapter passes.
      deliver: (inbound) => this.deliver({ ...inbound, gateway: gateway.name }),
      decide: (requestId, decision, decidedBy) => this.decide(requestId, decision, decidedBy),
      interaction: (requestId) => this.interaction(requestId),
      logger,
      scheduler: this.scheduler.forGateway(gateway.name, logger),
      env: this.#env,
    };
  }

  #gw(state: ThreadState): Gateway {
    const gateway = this.#registry.get(state.gateway);
    if (!gateway) throw new Error(`gateway "${state.gateway}" disappeared from the registry`);
    return gateway;
  }

  #state(gateway: string, thread: string): ThreadState {
    const threadId = gatewayThreadId(gateway, thread);
    let state = this.#threads.get(threadId);
    if (!state) {
      state = { gateway, thread, threadId, queue: [] };
      this.#threads.set(threadId, state);
    }
    return state;
  }

  /** Serialises every state change of one thread. */
  #withThread<T>(gateway: string, thread: string, fn: (state: ThreadState) => Promise<T> | T): Promise<T> {
    const key = gatewayThreadId(gateway, thread);
    const prev = this.#locks.get(key) ?? Promise.resolve();
    const next = prev.then(
      () => fn(this.#state(gateway, thread)),
      () => fn(this.#state(gateway, thread)),
    );
    const settled = next.catch(() => undefined);
    this.#locks.set(key, settled);
    void settled.then(() => {
      if (this.#locks.get(key) === settled) this.#locks.delete(key);
    });
    return next;
  }

  #track(work: Promise<unknown>): void {
    const p = work.catch((err) => {
      if (!this.#stopped) this.logger.error({ err }, "session work failed");
    });
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p));
  }
}

function failureText(err: unknown): string {
  const code =
    err && typeof err === "object" && "code" in err ? String((err as { code: unknown }).code) : "error";
  return `Sorry, I could not answer this message (${code}).`;
}
