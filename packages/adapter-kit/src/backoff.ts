// The one backoff every retry loop uses: exponential from `baseMs`, capped at `maxMs`, plus jitter.

export interface BackoffOptions {
  /** First delay. Default 1 000 ms. */
  baseMs?: number;
  /** Largest delay before jitter. Default 60 000 ms. */
  maxMs?: number;
  /** Extra random share added on top, 0..1. Default 0.2 (20%). */
  jitter?: number;
  /** Factor per attempt. Default 2. */
  factor?: number;
  /** Random source in [0, 1) (tests). */
  random?: () => number;
}

/** Delay before retry number `attempt` (1 = the first retry). */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 1_000;
  const max = options.maxMs ?? 60_000;
  const jitter = options.jitter ?? 0.2;
  const factor = options.factor ?? 2;
  const random = options.random ?? Math.random;
  const n = Math.max(1, Math.floor(attempt));
  const raw = Math.min(max, base * factor ** (n - 1));
  return Math.round(raw + raw * jitter * random());
}

/** A retry counter for one connection: `next()` gives the delay and counts; `reset()` after a success. */
export class Backoff {
  #attempt = 0;

  constructor(private readonly options: BackoffOptions = {}) {}

  get attempt(): number {
    return this.#attempt;
  }

  next(): number {
    this.#attempt += 1;
    return backoffDelay(this.#attempt, this.options);
  }

  reset(): void {
    this.#attempt = 0;
  }
}

/** Waits `ms`, or less when `signal` aborts (then resolves false). */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
