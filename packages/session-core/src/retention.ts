// Housekeeping: finished inbox records (their dedup keys), sent and dead outbox pieces, and
// expired seen tokens are deleted on a schedule.
import { DEFAULT_DEDUP_WINDOW_MS } from "@agentsvc/adapter-kit";
import type { Logger } from "pino";
import type { SessionStore } from "./store.js";

export interface RetentionOptions {
  /** Finished inbox records are kept this long: a platform redelivering within it is still deduplicated. Default 7 days. */
  inboxMs: number;
  /** Sent and dead outbox pieces are kept this long (pull clients, the dead-letter log). Default 7 days. */
  outboxMs: number;
  /** How often the pruning runs. Default 1 hour. */
  intervalMs: number;
}

const DAY = 24 * 60 * 60 * 1000;
export const DEFAULT_RETENTION: RetentionOptions = {
  inboxMs: DEFAULT_DEDUP_WINDOW_MS,
  outboxMs: 7 * DAY,
  intervalMs: 60 * 60 * 1000,
};

export async function pruneOnce(
  store: SessionStore,
  retention: RetentionOptions,
  logger: Logger,
  now = Date.now(),
) {
  const inbox = await store.inbox.prune(now - retention.inboxMs);
  const outbox = await store.outbox.prune(now - retention.outboxMs);
  const tokens = await store.seenTokens.prune(now);
  // Stored files: their own retention period and byte cap (chat-store's BlobStore options).
  const blobs = (await store.blobs?.prune(now)) ?? 0;
  if (inbox + outbox + tokens + blobs > 0) {
    logger.info({ inbox, outbox, tokens, blobs }, "pruned finished gateway records");
  }
  return { inbox, outbox, tokens, blobs };
}
