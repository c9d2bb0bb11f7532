/**
 * Finished runs kept for replay: each for `ttlMs`, and never more than `max` at once (the oldest
 * goes first), so a busy server's memory stays bounded however many turns it finishes a minute.
 * All entries share one TTL, so finish order is expiry order and one timer serves them all.
 */
export class RetentionQueue {
  /** threadId -> expiry time (ms), in the order the runs finished. */
  private readonly expiries = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly evict: (threadId: string) => void,
  ) {}

  get size(): number {
    return this.expiries.size;
  }

  /** Starts (or restarts) the retention of a finished run. */
  add(threadId: string): void {
    this.expiries.delete(threadId);
    this.expiries.set(threadId, Date.now() + this.ttlMs);
    if (this.expiries.size > this.max)
      this.dropOldest(this.expiries.size - this.max + Math.floor(this.max / 100));
    this.schedule();
  }

  /** The run is running again: it is no longer the queue's to evict. */
  remove(threadId: string): void {
    this.expiries.delete(threadId);
  }

  /** Forgets everything without evicting (shutdown). */
  clear(): void {
    this.expiries.clear();
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
    this.expiries.delete(threadId);
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
