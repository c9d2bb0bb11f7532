import { AgentsvcError, type RunStore } from "@agentsvc/agent-core";
import { unscoped } from "../thread-scope.js";

/** A run of the conversation awaiting a decision is never silently dropped by a clear or delete. */
export async function refuseWhileApprovalPending(
  runStore: RunStore,
  userId: string,
  conversationId: string,
): Promise<void> {
  const waiting = await runStore.listByConversation(userId, conversationId);
  if (waiting.length > 0) {
    throw new AgentsvcError(
      "approval_pending",
      `a run of conversation "${conversationId}" awaits an approval decision (threadId ${unscoped(waiting[0]?.options.threadId ?? "")}); approve or reject it first`,
      409,
    );
  }
}
