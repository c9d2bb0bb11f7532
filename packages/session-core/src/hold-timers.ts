// Threads kept after their last work (several instances, `threadHoldMs`), let go in groups: one
// timer for all of them, firing on a grid of `spacingMs` (the first grid point after the oldest
// hold ends), lets go every thread whose hold is over. A let-go is a read of the thread's queued records and the lock given back; fired in the
// same tick, the reads share one statement and the give-backs another (inbox.queued's and the
// link's lock batches), where a timer per thread made two statements per thread let go (after a
// burst, ~290 a minute of each on an instance). A thread is held at least the hold, at most the
// hold plus the spacing.

interface Kept {
  /** When its hold is over (ms, Date.now()). */
  at: number;
  fire(): void;
}

export class HoldTimers {
  /** In the order their holds end: every hold is as long, and a kept thread kept again moves to the end. */
  readonly #kept = new Map<string, Kept>();
  #timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly holdMs: number,
    private readonly spacingMs: number,
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
    this.#kept.delete(threadId);
    if (this.#kept.size === 0) this.#stop();
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

  #arm(): void {
    if (this.#timer) return;
    const first = this.#kept.values().next();
    if (first.done) return;
    // On the grid: holds that end close together end in the same tick, whenever they began.
    const at = Math.ceil(first.value.at / this.spacingMs) * this.spacingMs;
    // An exiting process gives every lock back with its connection: not kept alive for this.
    this.#timer = setTimeout(() => this.#tick(), Math.max(0, at - Date.now())).unref();
  }

  #tick(): void {
    this.#timer = undefined;
    const now = Date.now();
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
