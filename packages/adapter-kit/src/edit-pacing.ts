// When each chat's next edit (or send) may start, for adapters whose platform limits them per chat
// (Discord's channel edits, Telegram's group messages). A chat whose time has passed needs no entry:
// a missing one means "now" just the same. Those entries are dropped in a sweep whenever the map
// has doubled since the last one, so it holds about the chats paced within the last gap (or a
// retry-after), not every chat the process ever streamed to over months.
import { isGatewaySendError } from "./errors.js";

/** Below this many entries no sweep runs (a sweep is a walk over the map). */
const MIN_SWEEP_SIZE = 64;

export class EditPacing {
  readonly #next = new Map<string, number>();
  #sweepAt = MIN_SWEEP_SIZE;

  /** `gapMs`: how far apart one chat's edits start (read at each edit, so configuration may change it). */
  constructor(
    private readonly gapMs: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Books `key`'s next edit: how long to wait before making it (0: now); the one after starts a gap later. */
  reserve(key: string): number {
    const { at, now } = this.#book(key);
    return at - now;
  }

  /** The platform answered 429: nothing more for `key` before `retryAfterMs` from now. */
  hold(key: string, retryAfterMs: number): void {
    const now = this.now();
    this.#set(key, Math.max(this.#next.get(key) ?? 0, now + retryAfterMs), now);
  }

  /**
   * Waits for `key`'s next slot (reserve, then sleep until it). Node counts a timer from the loop's
   * clock as the arming tick began, which may be a few ms behind this clock, so a timer can fire
   * before the slot: the rest is slept again, and an edit never starts less than a gap after the last.
   */
  async wait(key: string): Promise<void> {
    const { at, now } = this.#book(key);
    for (let ms = at - now; ms > 0; ms = at - this.now()) await new Promise((r) => setTimeout(r, ms));
  }

  /**
   * Runs a send or edit of `key`; when it fails with a retry-after (the chat's limit, which a
   * restarted process cannot know from its own edits), nothing more for `key` before then. The next
   * one starts at least a gap after this one's answer: the platform counts an edit when it arrives,
   * which may be long after its slot (a late timer, a slow request on a loaded machine), and edits
   * counted from their slots alone then arrive closer than a gap (a 429 at Discord's 5 per 5 s).
   */
  async limited<T>(key: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (isGatewaySendError(err) && err.retryAfterMs !== undefined) this.hold(key, err.retryAfterMs);
      throw err;
    } finally {
      const now = this.now();
      this.#set(key, Math.max(this.#next.get(key) ?? 0, now + this.gapMs()), now);
    }
  }

  /** Chats with an entry now (tests, and a look at what the process keeps). */
  get size(): number {
    return this.#next.size;
  }

  /** `key`'s next slot (now, or the booked one), and the one after booked a gap later. */
  #book(key: string): { at: number; now: number } {
    const now = this.now();
    const at = Math.max(now, this.#next.get(key) ?? 0);
    this.#set(key, at + this.gapMs(), now);
    return { at, now };
  }

  #set(key: string, at: number, now: number): void {
    this.#next.set(key, at);
    if (this.#next.size < this.#sweepAt) return;
    for (const [k, t] of this.#next) if (t <= now) this.#next.delete(k);
    this.#sweepAt = Math.max(MIN_SWEEP_SIZE, 2 * this.#next.size);
  }
}
