import { AgentsvcError, type RunStore } from "@agentsvc/agent-core";
import { unscoped } from "../thread-scope.js";

/**
 * A run of the conversation awaiting a decision is never silently dropped by a clear or delete; one
 * whose decision is made is only finishing (its checkpoint row lives until the turn is saved): the
 * caller is told to wait, not to decide.
 */
export async function refuseWhileApprovalPending(
  runStore: RunStore,
  userId: string,
  conversationId: string,
): Promise<void> {
  const runs = await runStore.listByConversation(userId, conversationId);
  const waiting = runs.find((run) => !run.continuation);
  if (waiting) {
    throw new AgentsvcError(
      "approval_pending",
      `a run of conversation "${conversationId}" awaits an approval decision (threadId ${unscoped(waiting.options.threadId)}); approve or reject it first`,
      409,
    );
  }
  const finishing = runs[0];
  if (finishing) {
    throw new AgentsvcError(
      "thread_busy",
      `a run of conversation "${conversationId}" is still finishing after its approval decision (threadId ${unscoped(finishing.options.threadId)}); try again when it ends`,
      409,
    );
  }
}
