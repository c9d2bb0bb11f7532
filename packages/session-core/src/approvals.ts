// Approvals between the RunManager and the gateways: a suspended run becomes an interaction
// request rendered through the outbox; a decision (button, text, expiry) is recorded together
// with the run's resume, so a crash never loses it or applies it twice. No conversation is ever
// blocked for good: a request no channel can render is rejected at once, and every request expires.
import { randomBytes } from "node:crypto";
import type { Decision, PendingApproval, SuspendedRun } from "@agentsvc/agent-core";
import { AgentsvcError, fault } from "@agentsvc/agent-core";
import type { DecideResult, DecidedNotice, DecisionInput, Gateway, InteractionRequest } from "./gateway.js";
import { describeRequest } from "@agentsvc/adapter-kit";
import type { SessionParts } from "./parts.js";
import { type OutboxItem, textPieces } from "./replies.js";
import { isDecided, type StoredInteraction } from "./store.js";
import type { ThreadState } from "./threads.js";
import type { Turns } from "./turns.js";
import { traced } from "./trace.js";

export interface ApprovalOptions {
  /** Registry key of the channel asked for runs that did not come through a gateway. Default `cli`. */
  channel: string;
  /** Open requests are rejected after this long. Default 24 h. */
  expiresAfterMs: number;
}

export const DEFAULT_APPROVAL_EXPIRY_MS = 24 * 60 * 60 * 1000;

type Target = { gateway: Gateway; thread: string; meta?: Record<string, unknown>; participant?: string };

export class Approvals {
  readonly #deciding = new Set<string>();

  constructor(
    private readonly p: SessionParts,
    private readonly turns: Turns,
    private readonly options: ApprovalOptions,
  ) {}

  /** A run suspended on an approval: ask on its own thread, or on the approval channel's destination. */
  async onSuspended(run: SuspendedRun, pending: PendingApproval): Promise<void> {
    const target = this.#targetFor(run);
    if (typeof target === "string") {
      await this.#rejectUnrenderable(run, target);
      return;
    }
    const { gateway, thread } = target;
    await this.p.threads.with(gateway.name, thread, (state) => this.#ask(state, target, run, pending));
  }

  async #ask(state: ThreadState, target: Target, run: SuspendedRun, pending: PendingApproval): Promise<void> {
    const { gateway, thread } = target;
    const threadId = run.options.threadId;
    const open = await this.p.store.interactions.getOpenByThread(gateway.name, thread);
    if (open && open.threadId === threadId) {
      state.pendingRequestId = open.requestId;
      return; // already asked
    }
    if (open && !gateway.capabilities.threads) {
      this.p
        .loggerFor(gateway)
        .warn(
          { thread, replaced: open.requestId },
          "a new approval request replaces the open one on this thread (the platform has no threads); the older one can no longer be answered by text and will expire",
        );
    }
    const now = Date.now();
    const request: InteractionRequest = {
      requestId: `req_${randomBytes(16).toString("base64url")}`,
      threadId,
      gateway: gateway.name,
      thread,
      allowedDecisions: pending.allowedDecisions,
      toolName: pending.toolName,
      arguments: pending.arguments,
      prompt: describeRequest(pending.toolName, pending.arguments, pending.allowedDecisions, {
        buttons: gateway.capabilities.interactiveActions && !!gateway.requestDecision,
      }),
      createdAt: now,
      expiresAt: now + this.options.expiresAfterMs,
      ...(target.meta ? { meta: target.meta } : {}),
    };
    // The reply streamed so far becomes its own message first: the request never lands inside a draft.
    if (state.active && state.threadId === threadId) {
      // From here the store may hold a prefix of its reply: the commit must look for it.
      state.active.unsuspended = false;
      await this.p.previews.finalise(gateway, thread, state.active.inboxId, state.active.origin.meta);
    }
    await this.p.store.transaction(async () => {
      await this.p.store.interactions.save({ ...request, participant: target.participant ?? null });
      // The request is sent in the trace of the message whose turn asked for it.
      const traceparent = run.options.origin?.traceparent;
      await this.p.store.outbox.enqueue(traced(this.renderItems(gateway, request, "render"), traceparent));
    });
    state.pendingRequestId = request.requestId;
    if (state.active && state.threadId === threadId) state.active.phase = "suspended";
    this.p.sender.wake();
  }

  /** Buttons through `requestDecision`, or the prompt as text when the platform has none. */
  renderItems(gateway: Gateway, request: InteractionRequest, suffix: string): OutboxItem[] {
    if (gateway.capabilities.interactiveActions && gateway.requestDecision) {
      return [
        {
          gateway: gateway.name,
          thread: request.thread,
          idemKey: `${request.requestId}:${suffix}`,
          kind: "approval",
          payload: request,
        },
      ];
    }
    return textPieces(
      gateway,
      request.thread,
      request.prompt,
      `${request.requestId}:${suffix}`,
      request.meta,
      request.requestId,
    );
  }

  /** A decision from a gateway (button, card, prompt, http) or a matched text reply. */
  async decide(
    requestId: string,
    input: DecisionInput,
    decidedBy: string,
    options: { inboxId?: number; trusted?: boolean } = {},
  ): Promise<DecideResult> {
    const rec = await this.p.store.interactions.get(requestId);
    if (!rec) return { ok: false, code: "not_found", message: `no interaction request "${requestId}"` };
    return this.p.threads.with(rec.gateway, rec.thread, (state) =>
      this.decideLocked(state, rec, input, decidedBy, options),
    );
  }

  async decideLocked(
    state: ThreadState,
    stale: StoredInteraction,
    input: DecisionInput,
    decidedBy: string,
    options: { inboxId?: number; trusted?: boolean } = {},
  ): Promise<DecideResult> {
    const requestId = stale.requestId;
    const rec = (await this.p.store.interactions.get(requestId)) ?? stale;
    if (isDecided(rec) || this.#deciding.has(requestId)) {
      return {
        ok: false,
        code: "already_decided",
        message: `interaction request "${requestId}" was already decided`,
      };
    }
    if (!options.trusted && !this.mayDecide(rec, decidedBy)) {
      return {
        ok: false,
        code: "forbidden",
        message: `${decidedBy} may not decide interaction request "${requestId}"`,
      };
    }
    if (!rec.allowedDecisions.includes(input.decision)) {
      return {
        ok: false,
        code: "bad_decision",
        message: `decision: expected one of ${rec.allowedDecisions.join(", ")} (got "${String(input.decision)}")`,
      };
    }
    const suspended = await this.p.store.runStore.get(rec.threadId);
    if (!suspended || suspended.continuation) {
      return {
        ok: false,
        code: "already_decided",
        message: `the run of "${requestId}" is no longer waiting for a decision`,
      };
    }
    const owner = { userId: suspended.options.userId };
    const gatewayTurn = state.active && state.threadId === rec.threadId ? state.active : undefined;
    const decision = {
      decision: input.decision,
      ...(input.reason !== undefined ? { reason: input.reason } : {}),
      ...(input.editedData !== undefined ? { editedData: input.editedData } : {}),
    };
    this.#deciding.add(requestId);
    try {
      const handle = await this.p.runs.resume(rec.threadId, decision, owner, {
        // Recorded in the same transaction as the run's decision: the interaction, the text reply
        // that carried it, and the notice that lets the adapter update its buttons.
        record: () =>
          this.#record(
            rec,
            { ...decision, decidedBy },
            options.inboxId,
            suspended.options.origin?.traceparent,
          ),
        ...(gatewayTurn ? this.turns.persistHooks(state, gatewayTurn) : {}),
      });
      fault("mid-resume");
      if (input.cancelRun)
        this.p.runs.cancel(rec.threadId, owner, input.reason ?? "cancelled at the approval prompt");
      if (state.pendingRequestId === requestId) state.pendingRequestId = undefined;
      if (gatewayTurn) {
        gatewayTurn.phase = "running";
        this.turns.follow(state, handle);
      } else {
        // Not a gateway turn (agent route, approval channel): the continuation saves itself.
        this.p.track(
          handle.done.then((r) =>
            this.p.logger.info({ threadId: rec.threadId, status: r.status }, "approved run ended"),
          ),
        );
      }
      this.p.sender.wake();
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

  /**
   * Rejects every open request past its expiry; the run continues with the rejection. Several
   * instances: only requests of threads this instance holds or can take now, as a decision takes
   * the thread first (it adopts the waiting turn, so the turn ends with its reply); one held
   * elsewhere is expired by its holder's own sweep.
   */
  async expireDue(now = Date.now()): Promise<number> {
    let n = 0;
    for (const rec of await this.p.store.interactions.expired(now)) {
      if (!(await this.p.claim(rec.gateway, rec.thread))) {
        this.p.logger.debug(
          { requestId: rec.requestId, gateway: rec.gateway, thread: rec.thread },
          "approval request expired on a thread another instance runs; left to it",
        );
        continue;
      }
      const minutes = Math.round(((rec.expiresAt ?? now) - rec.createdAt) / 60_000);
      const result = await this.decide(
        rec.requestId,
        {
          decision: "reject",
          reason: `no decision within ${minutes} minute${minutes === 1 ? "" : "s"}; the request expired`,
        },
        "session:expired",
        { trusted: true },
      );
      if (result.ok) n += 1;
      this.p.logger.info(
        { requestId: rec.requestId, outcome: result.ok ? "rejected" : result.code },
        "approval request expired",
      );
      // Its run went on another way (resumed through the agent route, or ended): nothing waits for
      // this request. Closed as expired, else every sweep would find it again, forever.
      if (!result.ok && result.code === "already_decided")
        await this.p.store.interactions.resolve(rec.requestId, {
          decision: "reject",
          decidedBy: "session:expired",
          reason: "expired; its run was no longer waiting, so nothing was applied",
        });
    }
    return n;
  }

  async #record(
    rec: StoredInteraction,
    decision: Decision,
    inboxId: number | undefined,
    traceparent: string | undefined,
  ): Promise<void> {
    await this.p.store.interactions.resolve(rec.requestId, decision);
    if (inboxId !== undefined) await this.p.store.inbox.markDone(inboxId, "done");
    const gateway = this.p.registry.get(rec.gateway);
    if (gateway?.onDecided) {
      const notice: DecidedNotice = {
        requestId: rec.requestId,
        gateway: rec.gateway,
        thread: rec.thread,
        decision: decision.decision,
        decidedBy: decision.decidedBy,
        ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      };
      // Sent in the trace of the message whose turn asked (as the request itself was).
      await this.p.store.outbox.enqueue(
        traced(
          [
            {
              gateway: rec.gateway,
              thread: rec.thread,
              idemKey: `${rec.requestId}:decided`,
              kind: "decided",
              payload: notice,
            },
          ],
          traceparent,
        ),
      );
    }
  }

  /** The thread's own participant, or a configured approver; channel adapters (cli, http) are the operator's own. */
  mayDecide(rec: StoredInteraction, decidedBy: string): boolean {
    const gateway = this.p.registry.get(rec.gateway);
    if (!gateway || gateway.kind === "channel") return true;
    const approvers = this.p.entryOptions(rec.gateway).approvers ?? [];
    if (approvers.includes(decidedBy)) return true;
    if (rec.participant) return decidedBy === rec.participant;
    // An approval destination without a participant: anyone there, unless approvers are configured.
    return approvers.length === 0;
  }

  #targetFor(run: SuspendedRun): Target | string {
    const origin = run.options.origin;
    if (origin) {
      const gateway = this.p.registry.get(origin.gateway);
      if (gateway) {
        return {
          gateway,
          thread: origin.thread,
          ...(origin.meta ? { meta: origin.meta } : {}),
          ...(origin.author ? { participant: origin.author.id } : {}),
        };
      }
      return `the gateway "${origin.gateway}" the run came from is not registered`;
    }
    const channel = this.options.channel;
    const gateway = this.p.registry.get(channel);
    if (!gateway) {
      return `approval channel "${channel}" is not available (not configured, or "cli" without a terminal); set approvals.channel to a gateway entry with an approvalDestination`;
    }
    const destination = this.p.entryOptions(gateway.name).approvalDestination;
    if (destination) return { gateway, thread: destination };
    // Channel adapters (cli, http) show requests by request id; a platform needs a chat to post in.
    if (gateway.kind === "channel") return { gateway, thread: run.options.threadId };
    return `approval channel "${channel}" has no approvalDestination (a chat id, number or address to ask in)`;
  }

  async #rejectUnrenderable(run: SuspendedRun, why: string): Promise<void> {
    const threadId = run.options.threadId;
    const reason = `no approval channel could ask for a decision: ${why}`;
    this.p.logger.error(
      { threadId, tool: run.pendingCall.name },
      `approval request rejected at once: ${reason}`,
    );
    try {
      const handle = await this.p.runs.resume(
        threadId,
        { decision: "reject", reason },
        { userId: run.options.userId },
      );
      this.p.track(handle.done);
    } catch (err) {
      this.p.logger.error({ err, threadId }, "could not reject the unrenderable approval request");
    }
  }
}
