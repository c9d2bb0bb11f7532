// The outbox sender's options and its timing helpers (the bound on one platform call, the wait of a
// spaced pass): their own file so the sender stays within the 400-line rule.
import type { OutboundFilePayload } from "@agentsvc/adapter-kit";

/** Tries before a piece is dead-lettered, unless `OutboxOptions.maxAttempts` says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 10;

/**
 * Woken passes start at most once per this many ms: wakes that come during a pass, or within this
 * time of its start, share one pass at its end. A wake after a quieter spell starts a pass at once.
 */
export const WAKE_SPACING_MS = 50;

export interface OutboxOptions {
  /** A signed short-lived URL of a file piece's blob served by this service (platforms that fetch by URL). */
  fileUrl?: (file: OutboundFilePayload) => string | undefined;
  /** Tries before a piece is dead-lettered. Default 10. */
  maxAttempts?: number;
  /** First retry delay. Default 1 000 ms. */
  baseDelayMs?: number;
  /** Largest retry delay (before jitter). Default 300 000 ms. */
  maxDelayMs?: number;
  /** Pieces sent at once (each from a different thread). Default 8. */
  concurrency?: number;
  /** A send that has not settled by then counts as failed and is retried (a hung platform call must not stall every thread). Default 60 000 ms. */
  sendTimeoutMs?: number;
  /** How often an idle sender looks anyway (a piece `agentsvc outbox retry` put back). Default OUTBOX_IDLE_POLL_MS. */
  idlePollMs?: number;
}

/** `work`, or a rejection once `ms` passed without it settling. */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the platform call did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A wait of `ms` that `cut()` ends at once (a sender stopping does not wait for a spaced pass). */
export function cutPause(ms: number): { over: Promise<void>; cut(): void } {
  let cut!: () => void;
  const over = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    cut = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { over, cut };
}
