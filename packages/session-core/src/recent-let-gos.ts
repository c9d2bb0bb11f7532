// Threads seen in some state in the last moment (several instances), pruned as they age.
// RecentLetGos: threads this instance let go. A message recorded elsewhere is announced to the holder
// the recorder's statement saw (`held`), and instances that do not hold the thread ignore the
// announcement; one that let the thread go while the message was being recorded (its last look read
// before the record was committed) would leave it to the sweep, a period or more later. It looks
// again instead: the announcement names it, so one instance tries, not all (#45.3).

/** How long after a let-go an announcement of the thread is still looked at. */
export const RECENT_LET_GO_MS = 500;

/**
 * Ownership's `heldElsewhere`: how long, past the hold (`threadHoldMs`), a thread seen held by another
 * instance (a take refused, an announcement heard) counts as held there, so its next message here is
 * recorded by the statement that announces it to the holder (dispatch.ts). A holder keeps a thread
 * its turn's length and the hold past its last sign of work; this covers the turn.
 */
export const HELD_ELSEWHERE_PAST_HOLD_MS = 1_000;

/** Thread ids seen within `windowMs`, that moment included. */
export class RecentThreads {
  /** Thread id -> when it was seen; oldest first (a thread seen again moves to the end). */
  readonly #at = new Map<string, number>();

  constructor(readonly windowMs: number) {}

  add(threadId: string, now = Date.now()): void {
    this.#at.delete(threadId);
    this.#at.set(threadId, now);
    for (const [id, at] of this.#at) {
      if (now - at <= this.windowMs) break;
      this.#at.delete(id);
    }
  }

  has(threadId: string, now = Date.now()): boolean {
    const at = this.#at.get(threadId);
    return at !== undefined && now - at <= this.windowMs;
  }
}

export class RecentLetGos extends RecentThreads {
  constructor() {
    super(RECENT_LET_GO_MS);
  }
}
