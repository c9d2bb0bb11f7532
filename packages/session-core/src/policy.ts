// The busy policy of one thread (spec gateways §3): what a message does when it arrives. A plain
// reply on a thread waiting for a decision is matched against the decisions first.
import type { Approvals } from "./approvals.js";
import { matchDecisionText } from "@agentsvc/adapter-kit";
import type { SessionParts } from "./parts.js";
import { isDecided } from "./store.js";
import type { QueuedMessage, ThreadState } from "./threads.js";
import type { Turns } from "./turns.js";

export type SessionPolicy = "reject" | "queue" | "steer" | "interrupt";

export class BusyPolicy {
  constructor(
    private readonly p: SessionParts,
    private readonly turns: Turns,
    private readonly approvals: Approvals,
    private readonly options: { policy: SessionPolicy; maxQueueDepth: number },
  ) {}

  async onMessage(state: ThreadState, msg: QueuedMessage): Promise<void> {
    // A plain reply on a thread waiting for a decision is matched against the decisions first.
    if (state.pendingRequestId && msg.origin.author) {
      const rec = await this.p.store.interactions.get(state.pendingRequestId);
      const match = rec && !isDecided(rec) ? matchDecisionText(msg.text, rec.allowedDecisions) : undefined;
      if (rec && match) {
        const outcome = await this.approvals.decideLocked(state, rec, match, msg.origin.author.id, {
          inboxId: msg.inboxId,
        });
        if (outcome.ok) return;
        this.p.logger.info(
          { outcome, thread: state.thread },
          "text looked like a decision but was not applied; handled as a message",
        );
      }
    }
    if (!state.active) {
      await this.turns.start(state, msg);
      return;
    }
    const caller = { userId: state.gateway };
    const full = state.queue.length >= this.options.maxQueueDepth;
    switch (this.options.policy) {
      case "reject":
        await this.turns.busy(state, msg);
        return;
      case "queue":
        if (full) await this.turns.busy(state, msg);
        else state.queue.push(msg);
        return;
      case "steer":
        if (state.active.phase === "running" && this.p.runs.steer(state.threadId, msg.text, caller)) {
          // Marked done when the turn that absorbed it commits; until then it is a queued record.
          state.active.steered.push(msg.inboxId);
          state.active.span?.addEvent("message steered into the turn", { "agentsvc.inbox_id": msg.inboxId });
        } else if (full) await this.turns.busy(state, msg);
        else state.queue.push(msg); // nothing to splice into (suspended or just ended): its own turn
        return;
      case "interrupt": {
        if (full) {
          await this.turns.busy(state, msg);
          return;
        }
        state.queue.push(msg);
        if (state.active.phase === "running") {
          this.p.runs.cancel(state.threadId, caller, "interrupted by a new message");
          return;
        }
        if (!state.pendingRequestId) return;
        // A run waiting for a decision is rejected and cancelled, but only by someone who could
        // decide it (its requester or an approver); anyone else's message waits behind it.
        const rec = await this.p.store.interactions.get(state.pendingRequestId);
        if (!rec || isDecided(rec)) return;
        // Every delivered message has an author (inbound.ts refuses one without author.id); the
        // fallback only answers the origin type, where a run started elsewhere may have none.
        // Stryker disable next-line OptionalChaining,StringLiteral: unreachable defence (see above); any stand-in id names nobody
        if (!this.approvals.mayDecide(rec, msg.origin.author?.id ?? "")) {
          this.p.logger.debug(
            { thread: state.thread, requestId: rec.requestId },
            "interrupt: the author may not decide the waiting request; the message queues",
          );
          return;
        }
        const input = {
          decision: "reject" as const,
          reason: "interrupted by a new message",
          cancelRun: true,
        };
        await this.approvals.decideLocked(state, rec, input, "session:interrupt", { trusted: true });
        return;
      }
    }
  }
}
