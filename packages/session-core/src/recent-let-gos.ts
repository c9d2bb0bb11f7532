// Threads this instance let go in the last moment (several instances). A message recorded elsewhere
// is announced to the holder the recorder's statement saw (`held`), and instances that do not hold
// the thread ignore the announcement; one that let the thread go while the message was being recorded
// (its last look read before the record was committed) would leave it to the sweep, a period or more
// later. It looks again instead: the announcement names it, so one instance tries, not all (#45.3).

/** How long after a let-go an announcement of the thread is still looked at. */
export const RECENT_LET_GO_MS = 500;

export class RecentLetGos {
  /** Thread id -> when it was let go; oldest first (a thread let go again moves to the end). */
  readonly #at = new Map<string, number>();

  add(threadId: string, now = Date.now()): void {
    this.#at.delete(threadId);
    this.#at.set(threadId, now);
    for (const [id, at] of this.#at) {
      if (now - at <= RECENT_LET_GO_MS) break;
      this.#at.delete(id);
    }
  }

  has(threadId: string, now = Date.now()): boolean {
    const at = this.#at.get(threadId);
    return at !== undefined && now - at <= RECENT_LET_GO_MS;
  }
}
