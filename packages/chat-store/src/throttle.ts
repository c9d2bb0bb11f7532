// Failed sign-in counters per key (the caller chooses keys such as `user:alice`, `addr:10.0.0.5`).
// `maxFailures` failures inside one window lock the key for `lockMs` from the last failure.
import { eq } from "drizzle-orm";
import type { StoreContext } from "./context.js";
import { loginThrottle } from "./schema.js";

export interface ThrottleOptions {
  /** Default 5. */
  maxFailures?: number;
  /** Window in which failures add up. Default 15 minutes. */
  windowMs?: number;
  /** How long a key stays locked once the limit is hit. Default: windowMs. */
  lockMs?: number;
}

export interface ThrottleState {
  failures: number;
  locked: boolean;
  /** Milliseconds since the epoch; set while locked. */
  lockedUntil: number | null;
}

export class Throttle {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly lockMs: number;

  constructor(
    private readonly ctx: StoreContext,
    options: ThrottleOptions = {},
  ) {
    this.maxFailures = options.maxFailures ?? 5;
    this.windowMs = options.windowMs ?? 15 * 60 * 1000;
    this.lockMs = options.lockMs ?? this.windowMs;
  }

  recordFailure(key: string): ThrottleState {
    return this.ctx.db.transaction(
      (tx) => {
        const now = this.ctx.now();
        const row = tx.select().from(loginThrottle).where(eq(loginThrottle.throttleKey, key)).get();
        const lockedNow = row?.lockedUntil != null && now < row.lockedUntil;
        // A new window starts after an expired lock or an elapsed window, never during a lock.
        const fresh =
          !row || (!lockedNow && (row.lockedUntil !== null || now - row.windowStart >= this.windowMs));
        const failures = fresh ? 1 : row.failures + 1;
        const windowStart = fresh ? now : row.windowStart;
        const lockedUntil = failures >= this.maxFailures ? now + this.lockMs : null;
        tx.insert(loginThrottle)
          .values({ throttleKey: key, failures, windowStart, lockedUntil })
          .onConflictDoUpdate({
            target: loginThrottle.throttleKey,
            set: { failures, windowStart, lockedUntil },
          })
          .run();
        return { failures, locked: lockedUntil !== null, lockedUntil };
      },
      { behavior: "immediate" },
    );
  }

  isLocked(key: string): boolean {
    return this.state(key).locked;
  }

  state(key: string): ThrottleState {
    const row = this.ctx.db.select().from(loginThrottle).where(eq(loginThrottle.throttleKey, key)).get();
    const now = this.ctx.now();
    if (!row) return { failures: 0, locked: false, lockedUntil: null };
    const locked = row.lockedUntil !== null && now < row.lockedUntil;
    const inWindow = now - row.windowStart < this.windowMs || locked;
    return { failures: inWindow ? row.failures : 0, locked, lockedUntil: locked ? row.lockedUntil : null };
  }

  /** After a successful sign-in. */
  reset(key: string): void {
    this.ctx.db.delete(loginThrottle).where(eq(loginThrottle.throttleKey, key)).run();
  }
}
