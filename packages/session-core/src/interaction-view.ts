// The read view of an interaction request: the stored request plus the tool and arguments of its run.
import type { InteractionView } from "./gateway.js";
import { isDecided, type SessionStore } from "./store.js";

/** An interaction request with its tool and arguments (from the suspended run), or undefined. */
export async function interactionView(
  store: SessionStore,
  requestId: string,
): Promise<InteractionView | undefined> {
  const rec = await store.interactions.get(requestId);
  if (!rec) return undefined;
  const run = await store.runStore.get(rec.threadId);
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
    ...(rec.expiresAt !== null ? { expiresAt: rec.expiresAt } : {}),
    status: isDecided(rec) ? "decided" : "open",
  };
}
