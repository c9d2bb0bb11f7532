// When a failed model attempt is tried again, and after how long. The loop itself is the AI SDK's
// own `retryWithExponentialBackoff` (@ai-sdk/provider-utils); this file gives it our rules.
import { ModelCallError } from "./model-errors.js";

/** Retries after the first attempt unless `settings.maxRetries` says otherwise (the AI SDK's default too). */
export const DEFAULT_MAX_RETRIES = 2;
/** A provider's `retry-after` is honoured up to this; a longer wait gives up at once (the client gets `retryAfterMs`). */
export const RETRY_AFTER_CAP_MS = 60_000;
/** The first backoff pause; each later one doubles. */
export const INITIAL_RETRY_DELAY_MS = 1_000;

export interface RetryPolicy {
  maxRetries: number;
  initialDelayMs: number;
  retryAfterCapMs: number;
  /** 0..1 (tests pin it). */
  random: () => number;
}

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return {
    maxRetries: DEFAULT_MAX_RETRIES,
    initialDelayMs: INITIAL_RETRY_DELAY_MS,
    retryAfterCapMs: RETRY_AFTER_CAP_MS,
    random: Math.random,
    ...overrides,
  };
}

/** A retryable failure whose provider-given wait fits the cap. */
export function shouldRetry(error: unknown, policy: RetryPolicy): boolean {
  if (!(error instanceof ModelCallError) || !error.retryable) return false;
  const wait = error.error.retryAfterMs;
  return wait === undefined || wait <= policy.retryAfterCapMs;
}

/**
 * The pause before the next attempt: the provider's `retry-after-ms`/`retry-after` when it gave
 * one, else the exponential backoff with "equal jitter" (half fixed, half random), so clients that
 * failed together do not all come back at the same instant.
 */
export function retryDelay(error: unknown, backoffMs: number, policy: RetryPolicy): number {
  const given = error instanceof ModelCallError ? error.error.retryAfterMs : undefined;
  if (given !== undefined) return given;
  return Math.round(backoffMs / 2 + (backoffMs / 2) * policy.random());
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries are spent; the error thrown is
 * the last attempt's. `onRetry` hears each pause before it starts. A cancel during a pause throws
 * the signal's AbortError.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  signal: AbortSignal,
  onRetry?: (error: ModelCallError, delayMs: number) => void,
): Promise<T> {
  // The first attempt runs before provider-utils is loaded (it loads zod: ~20 MB and a tenth of a
  // cold start); a failure is then replayed as the loop's own first attempt, so the loop decides
  // about it exactly as if it had made the call.
  let firstError: unknown;
  try {
    return await attempt();
  } catch (error) {
    firstError = error;
  }
  const { retryWithExponentialBackoff } = await import("@ai-sdk/provider-utils");
  let calls = 0;
  const retry = retryWithExponentialBackoff({
    maxRetries: policy.maxRetries,
    initialDelayInMs: policy.initialDelayMs,
    backoffFactor: 2,
    abortSignal: signal,
    shouldRetry: (error) => shouldRetry(error, policy),
    getDelayInMs: ({ error, exponentialBackoffDelay }) => {
      const delay = retryDelay(error, exponentialBackoffDelay, policy);
      if (error instanceof ModelCallError) onRetry?.(error, delay);
      return delay;
    },
    // The AI SDK wraps the errors in a RetryError; the last attempt's own error says more.
    createRetryError: ({ errors }) => errors.at(-1),
  });
  return retry(() => (calls++ === 0 ? Promise.reject(firstError) : attempt()));
}
