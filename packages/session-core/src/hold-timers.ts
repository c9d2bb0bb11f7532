// Threads kept after their last work (several instances, `threadHoldMs`), let go in groups: one
// timer for all of them fires when the oldest hold is over, or as late as the last hold that ends
// within `gatherMs` of it, and lets go every thread whose hold is over. A let-go is a read of the
// thread's queued records and the lock given back; fired in the same tick, the reads share one
// statement and the give-backs another (inbox.queued's and the link's lock batches), where a timer
// per thread made two statements per thread (after a burst, ~290 a minute of each on an instance)
// and a 250 ms grid two per grid point (the threads let go in a burst's last second: 2-4 points on
// each instance). A thread is held at least the hold, at most the hold plus `gatherMs`.

import { HOLD_TIERS } from "./hold-stretch.js";

interface Kept {
  /** When its hold is over (ms, Date.now()). */
  at: number;
  fire(): void;
}

export class HoldTimers {
  /** In the order their holds end: every hold is as long, and a kept thread kept again moves to the end. */
  readonly #kept = new Map<string, Kept>();
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (ms, Date.now()). */
  #armedAt = 0;
  constructor(
    private readonly holdMs: number,
    private readonly gatherMs: number,
  ) {}

  get size(): number {
    return this.#kept.size;
  }

  /** Keeps `threadId` for the hold, then runs `fire` (once; a later `keep` or `cancel` replaces it). */
  keep(threadId: string, fire: () => void): void {
    this.#kept.delete(threadId);
    this.#kept.set(threadId, { at: Date.now() + this.holdMs, fire });
    this.#arm();
  }

  /** The thread's let-go is not run (it has work again, or it is gone). */
  cancel(threadId: string): void {
    if (!this.#kept.delete(threadId)) return;
    if (this.#kept.size === 0) this.#stop();
    else this.#arm();
  }

  /** Lets the oldest kept thread go now (another thread waits for room); false when none is kept. */
  fireOldest(): boolean {
    const first = this.#kept.entries().next();
    if (first.done) return false;
    const [threadId, kept] = first.value;
    this.cancel(threadId);
    kept.fire();
    return true;
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The timer at the end of the last hold within `gatherMs` of the oldest's end (re-armed when that moves). */
  #arm(): void {
    const first = this.#kept.values().next();
    if (first.done) {
      this.#stop();
      return;
    }
    let at = first.value.at;
    for (const kept of this.#kept.values()) {
      if (kept.at > first.value.at + this.gatherMs) break;
      at = kept.at;
    }
    if (this.#timer && this.#armedAt === at) return;
    this.#stop();
    this.#armedAt = at;
    // An exiting process gives every lock back with its connection: not kept alive for this.
    this.#timer = setTimeout(() => this.#tick(), Math.max(0, at - Date.now())).unref();
  }

  #tick(): void {
    this.#timer = undefined;
    // Node counts a timer from the loop's clock as the arming tick began, so it may fire before
    // Date.now() reaches the group's last hold: the armed time counts as now, or the group splits.
    const now = Math.max(Date.now(), this.#armedAt);
    const due: Kept[] = [];
    for (const [threadId, kept] of this.#kept) {
      if (kept.at > now) break;
      this.#kept.delete(threadId);
      due.push(kept);
    }
    // All in this tick: their statements group.
    for (const kept of due) kept.fire();
    this.#arm();
  }
}

/**
 * The most a suspended thread is kept (its hold, when shorter): its decision may reach another
 * instance, which tries the thread for about 2 s (`claimSoon`), so this plus the let-go gathering
 * stays under that. An idle thread has no decision to wait for: it is kept the whole hold (#45.3).
 */
export const SUSPENDED_HOLD_MS = 1000;

/**
 * Idle threads kept the whole hold (times 1, 2 or 4: hold-stretch.ts), suspended ones at most
 * SUSPENDED_HOLD_MS: one HoldTimers each, every thread in one holding as long.
 */
export class ThreadHolds {
  /** By tier: the hold times 2^tier. */
  readonly #idle: HoldTimers[];
  readonly #suspended: HoldTimers;
  constructor(holdMs: number, gatherMs: number) {
    this.#idle = Array.from(
      { length: HOLD_TIERS },
      (_, tier) => new HoldTimers(holdMs * 2 ** tier, gatherMs),
    );
    this.#suspended = new HoldTimers(Math.min(holdMs, SUSPENDED_HOLD_MS), gatherMs);
  }

  /** `tier`: an idle thread's (0-2), its hold times 2^tier; a suspended one's is not stretched. */
  keep(threadId: string, suspended: boolean, fire: () => void, tier = 0): void {
    (suspended ? this.#suspended : (this.#idle[tier] ?? this.#idle[0]))?.keep(threadId, fire);
  }

  cancel(threadId: string): void {
    for (const idle of this.#idle) idle.cancel(threadId);
    this.#suspended.cancel(threadId);
  }

  /** Lets the oldest kept thread go now, an idle one of the shortest hold first; false when none is kept. */
  fireOldest(): boolean {
    return this.#idle.some((idle) => idle.fireOldest()) || this.#suspended.fireOldest();
  }
}
