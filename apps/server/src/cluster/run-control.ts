// `/cancel` and `/steer` reach a run on whichever instance runs it, and a decision taken on one
// instance makes the others forget the suspension they remembered. The request goes out as a
// cluster message; the instance running the thread applies it and answers. No answer within
// `timeoutMs` means no instance runs it (false), the same answer one instance gives for an
// unknown thread. The acknowledgement and the release are fire-and-forget: a link that is down
// (reconnecting) makes them fail, which is logged; a rejection left unhandled would end the process.
import { randomUUID } from "node:crypto";
import type { Caller, Decision, RunHandle, RunManagerApi } from "@agentsvc/agent-core";
import type { ClusterMessage, Coordination } from "@agentsvc/session-core";
import { announce } from "@agentsvc/session-core/host";

type RunMessage = Extract<ClusterMessage, { kind: "run" }>;

export function clusterRuns(
  runs: RunManagerApi,
  coordination: Coordination,
  options: { timeoutMs?: number; logger: { warn(obj: object, msg: string): void } },
): RunManagerApi & { close(): void } {
  const timeoutMs = options.timeoutMs ?? 1000;
  // An unanswered ack reads as "no instance runs it" at the asker; a lost release leaves the other
  // instance remembering a suspension that a later decision there is refused for.
  const tell = (message: ClusterMessage) => announce(coordination, options.logger, message);
  const waiting = new Map<string, (ok: boolean) => void>();
  /** Releases this instance sent: its own continuation is running (or just ended) here. */
  const released = new Set<string>();

  const apply = (m: RunMessage): boolean => {
    const caller = { userId: m.userId };
    if (m.action === "cancel") return runs.cancel(m.threadId, caller, m.reason);
    if (m.action === "steer") return runs.steer(m.threadId, m.text ?? "", caller);
    runs.release?.(m.threadId);
    return false;
  };

  const unsubscribe = coordination.subscribe((m) => {
    if (m.kind === "run-ack") {
      waiting.get(m.id)?.(true);
      return;
    }
    if (m.kind !== "run" || waiting.has(m.id)) return; // our own request: not for us to apply
    if (released.delete(m.id)) return;
    if (apply(m)) tell({ kind: "run-ack", id: m.id });
  });

  const ask = (message: Omit<RunMessage, "kind" | "id">): Promise<boolean> => {
    const id = randomUUID();
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), timeoutMs);
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(ok);
      };
      waiting.set(id, finish);
      coordination.publish({ kind: "run", id, ...message }).catch(() => finish(false));
    });
  };

  return {
    start: (input) => runs.start(input),
    get: (threadId) => runs.get(threadId),
    cancel: (threadId, caller, reason) => runs.cancel(threadId, caller, reason),
    steer: (threadId, text, caller) => runs.steer(threadId, text, caller),
    pending: (threadId, caller) => runs.pending(threadId, caller),
    onSuspended: (listener) => runs.onSuspended(listener),
    drain: (ms) => runs.drain(ms),
    ...(runs.continueInterrupted ? { continueInterrupted: runs.continueInterrupted.bind(runs) } : {}),
    ...(runs.interrupted ? { interrupted: runs.interrupted.bind(runs) } : {}),
    ...(runs.release ? { release: runs.release.bind(runs) } : {}),
    ...(runs.pendingInConversation ? { pendingInConversation: runs.pendingInConversation.bind(runs) } : {}),
    async resume(threadId: string, decision: Omit<Decision, "decidedBy">, caller: Caller, more) {
      const handle: RunHandle = await runs.resume(threadId, decision, caller, more);
      // The instance where the run suspended remembers it as waiting: it is not any more.
      tell({
        kind: "run",
        id: randomUUID(),
        action: "release",
        threadId,
        userId: caller.userId,
      });
      return handle;
    },
    async cancelAnywhere(threadId, caller, reason) {
      if (runs.cancel(threadId, caller, reason)) return true;
      return ask({ action: "cancel", threadId, userId: caller.userId, ...(reason ? { reason } : {}) });
    },
    async steerAnywhere(threadId, text, caller) {
      if (runs.steer(threadId, text, caller)) return true;
      return ask({ action: "steer", threadId, userId: caller.userId, text });
    },
    close() {
      unsubscribe();
      for (const finish of waiting.values()) finish(false);
    },
  };
}
