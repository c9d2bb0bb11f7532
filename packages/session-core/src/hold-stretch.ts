// How long an idle thread is kept after its work, per thread (several instances, `threadHoldMs`).
// The hold is wall-clock, and a thread's next message comes when its sender's turn comes round: under
// load that is later, and a thread let go just before it is taken back, adopted and given back again.
// In the cluster bench at load 13 a third of three instances' takes were of threads the same instance
// had let go under 5 s before (a lock row each way, the adoption's reads, the let-go's last look).
// A thread taken back here within its hold of being let go is kept twice as long the next time, up to
// 4x; one that stays away longer than its hold starts again at 1x. Threads that do not come back are
// let go as before, so a quiet instance holds what it held.

/** Holds a thread can have: threadHoldMs times 1, 2 and 4. */
export const HOLD_TIERS = 3;

interface LetGo {
  at: number;
  tier: number;
}

export class HoldStretch {
  /** Tier of each thread held here that has one above 0. */
  readonly #held = new Map<string, number>();
  /** Threads let go lately, oldest first (a thread let go again moves to the end). */
  readonly #let = new Map<string, LetGo>();

  constructor(private readonly holdMs: number) {}

  /** The hold of `tier` (ms). */
  holdOf(tier: number): number {
    return this.holdMs * 2 ** tier;
  }

  /** The thread was taken here: a step up when this instance let it go less than its hold ago. */
  taken(threadId: string, now = Date.now()): void {
    const last = this.#let.get(threadId);
    this.#let.delete(threadId);
    const tier = last && now - last.at < this.holdOf(last.tier) ? Math.min(last.tier + 1, HOLD_TIERS - 1) : 0;
    if (tier > 0) this.#held.set(threadId, tier);
    else this.#held.delete(threadId);
  }

  /** Let-gos remembered now: only those a take could still step up (a service lets go of many threads). */
  get remembered(): number {
    return this.#let.size;
  }

  /** The tier of a thread held here now (0 for one not held). */
  tier(threadId: string): number {
    return this.#held.get(threadId) ?? 0;
  }

  /** The thread was let go here: remembered as long as a take could still step it up. */
  letGo(threadId: string, now = Date.now()): void {
    const tier = this.tier(threadId);
    this.#held.delete(threadId);
    this.#let.delete(threadId);
    this.#let.set(threadId, { at: now, tier });
    const longest = this.holdOf(HOLD_TIERS - 1);
    for (const [id, l] of this.#let) {
      if (now - l.at < longest) break;
      this.#let.delete(id);
    }
  }

  /** The thread was lost or forgotten here: nothing of it kept. */
  forget(threadId: string): void {
    this.#held.delete(threadId);
  }
}
