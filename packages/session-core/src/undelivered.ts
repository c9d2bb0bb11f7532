// A sent piece the platform later reports undelivered (a delivery status callback): dead-lettered,
// or pending again after a wait when the platform says it may still go through.
import type { Logger } from "pino";
import type { SessionParts } from "./parts.js";

/** Marks the piece; true when a sent piece was found. */
export async function markUndelivered(
  parts: SessionParts,
  maxAttempts: number,
  report: { gateway: string; thread: string; platformId: string; detail: string; retryAfterMs?: number },
  fallbackLogger: Logger,
): Promise<boolean> {
  const { gateway, thread, platformId, detail, retryAfterMs } = report;
  const retry = retryAfterMs === undefined ? undefined : { at: Date.now() + retryAfterMs, maxAttempts };
  const marked = await parts.store.outbox.markUndelivered(gateway, thread, platformId, detail, retry);
  // The sender sets its timer from the earliest due piece: a reopened one must be counted.
  if (marked && retry) parts.sender.wake();
  // Dead for good: logged once (a second report of the same status finds nothing sent: marked false).
  if (marked && !retry) {
    const g = parts.registry.get(gateway);
    (g ? parts.loggerFor(g) : fallbackLogger).error(
      { gateway, thread, platformMessageId: platformId, err: detail },
      "outbox piece dead-lettered: the platform reported it undelivered",
    );
  }
  return marked;
}
