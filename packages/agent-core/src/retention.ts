/**
 * Finished runs kept for replay: each for `ttlMs`, and never more than `max` at once (the oldest
 * goes first), so a busy server's memory stays bounded however many turns it finishes a minute.
 * All entries share one TTL, so finish order is expiry order and one timer serves them all.
 */
export class RetentionQueue {
  /** threadId -> expiry time (ms), in the order the runs finished. */
  private readonly expiries = new Map<string, number>();
  /** threadId -> its estimated size, for the byte bound. */
  private readonly sizes = new Map<string, number>();
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly evict: (threadId: string) => void,
    /** Most estimated bytes kept at once (a run's messages); past it the oldest go first. */
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Estimated bytes of the runs kept now. */
  get heldBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.expiries.size;
  }

  /** Starts (or restarts) the retention of a finished run. */
  add(threadId: string, bytes = 0): void {
    this.remove(threadId);
    this.expiries.set(threadId, Date.now() + this.ttlMs);
    this.sizes.set(threadId, bytes);
    this.bytes += bytes;
    if (this.expiries.size > this.max)
      this.dropOldest(this.expiries.size - this.max + Math.floor(this.max / 100));
    // By bytes: the oldest go until the rest fit (the newest stays whatever its size).
    while (this.bytes > this.maxBytes && this.expiries.size > 1)
      this.drop(this.expiries.keys().next().value as string);
    this.schedule();
  }

  /** The run is running again: it is no longer the queue's to evict. */
  remove(threadId: string): void {
    this.expiries.delete(threadId);
    this.bytes -= this.sizes.get(threadId) ?? 0;
    this.sizes.delete(threadId);
  }

  /** Forgets everything without evicting (shutdown). */
  clear(): void {
    this.expiries.clear();
    this.sizes.clear();
    this.bytes = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Evicts the `count` oldest in one pass. One at a time would restart a Map iterator per finished
   * run, and each restart skips every entry deleted from the front since the table last compacted
   * (a visible share of a busy server's CPU); past the cap 1% more go at once instead.
   */
  private dropOldest(count: number): void {
    const oldest: string[] = [];
    for (const threadId of this.expiries.keys()) {
      if (oldest.length >= count) break;
      oldest.push(threadId);
    }
    for (const threadId of oldest) this.drop(threadId);
  }

  private drop(threadId: string): void {
    this.remove(threadId);
    this.evict(threadId);
  }

  private sweep(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const [threadId, at] of this.expiries) {
      if (at > now) break;
      this.drop(threadId);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.expiries.size === 0) return;
    const head = this.expiries.values().next().value as number;
    this.timer = setTimeout(() => this.sweep(), Math.max(0, head - Date.now()));
    this.timer.unref();
  }
}
