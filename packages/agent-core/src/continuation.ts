// How a continued run (after an approval) is checkpointed, and where a restart picks it up.
import type { ToolCall } from "./messages.js";
import type { RunStore, SuspendedRun } from "./run-store.js";
import { type AnyTool, parseToolInput } from "./tool-input.js";
import type { AppliedDecision, Turn, TurnCheckpoint } from "./turn.js";

/** Saves the turn's messages and the call in progress to the run's RunStore row. */
export function checkpointer(store: RunStore, saved: SuspendedRun, turn: Turn): TurnCheckpoint {
  return async (phase, call, remaining) => {
    await store.save({
      ...saved,
      turnMessages: [...turn.turnMessages],
      pendingCall: call,
      remainingCalls: remaining,
      queuedSteers: [...turn.steers],
      ...(turn.usage ? { usage: turn.usage } : {}),
      continuation: { phase, decision: decisionOf(saved) },
    });
  };
}

/** What a restarted continuation runs first, by the phase its checkpoint reached. */
export function continuationPlan(
  saved: SuspendedRun,
  turn: Turn,
  tools: Map<string, AnyTool>,
): { calls: ToolCall[]; decision?: AppliedDecision } {
  const state = saved.continuation;
  if (state?.phase === "decided") {
    const decision: AppliedDecision = { ...state.decision };
    if (decision.decision === "edit") {
      const tool = tools.get(saved.pendingCall.name);
      const parsed = tool
        ? parseToolInput(tool, decision.editedData)
        : { ok: true as const, value: decision.editedData };
      // Validated when it was recorded; a tool whose schema changed since gets the error as its result.
      decision.parsedEdit = parsed.ok ? parsed.value : undefined;
    }
    return { calls: [saved.pendingCall, ...saved.remainingCalls], decision };
  }
  if (state?.phase === "executing") turn.recordInterrupted(saved.pendingCall);
  return { calls: saved.remainingCalls };
}

function decisionOf(saved: SuspendedRun) {
  if (!saved.continuation) throw new Error("checkpointer: the run has no recorded decision");
  return saved.continuation.decision;
}
