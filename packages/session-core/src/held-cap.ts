// The cap on the threads one instance holds at once (several instances, or one on PostgreSQL). Each
// held thread is a session advisory lock, and PostgreSQL keeps every lock of the server (every
// instance's thread locks, every statement's table and index locks) in one shared table of
// max_locks_per_transaction x (max_connections + max_prepared_transactions) entries, 6,400 with the
// defaults. When it is full, statements and new connections of everything on that server fail
// ("out of shared memory"): one instance that took about 7,000 threads at once in a burst did that.
// A thread refused for want of room waits here, its messages queued in the inbox (durable; a
// restart or another instance takes them), and is taken, oldest first, as held threads are let go.
// New threads queue behind the waiting ones, so a burst of fresh threads cannot starve them.

/**
 * The default cap: well under the default lock table (6,400) shared by every instance and by the
 * statements on the server, so several instances at their cap still leave room for the rest, and
 * more than one process runs turns of at once usefully (each one a model call).
 */
export const DEFAULT_MAX_HELD_THREADS = 1000;

/** The environment variable that sets the cap when the session's `maxHeldThreads` is not given. */
export const MAX_HELD_THREADS_ENV = "AGENTSVC_MAX_HELD_THREADS";

/** Least time between two warnings that threads wait for room. */
const WARN_EVERY_MS = 60_000;

interface Waiting {
  gateway: string;
  thread: string;
}

export class HeldCap {
  /** Lock takes in flight: counted, the server may hold a lock before its answer arrives. */
  #taking = 0;
  /** Threads refused for want of room, oldest first. */
  readonly #waiting = new Map<string, Waiting>();
  /** Waiting threads being taken now: their places are kept for them. */
  readonly #woken = new Set<string>();
  #warnedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly max: number,
    private readonly d: {
      /** Locks this instance counts on the server: held, and being given back. */
      locks(): number;
      /** Takes a waiting thread (and its messages not taken yet). */
      take(gateway: string, thread: string): Promise<void>;
      track(work: Promise<unknown>): void;
      logger: { warn(obj: object, msg: string): void };
    },
  ) {}

  /** Threads waiting for room now. */
  get waiting(): number {
    return this.#waiting.size;
  }

  isWaiting(threadId: string): boolean {
    return this.#waiting.has(threadId);
  }

  #used(): number {
    return this.d.locks() + this.#taking + this.#woken.size;
  }

  /**
   * A place for taking the thread's lock now (true: call `taken` once the take has answered), or
   * false: the thread waits (in its place, when it waited already). A thread woken for a place
   * gets it; any other waits while others wait.
   */
  reserve(gateway: string, thread: string, threadId: string): boolean {
    const woken = this.#woken.delete(threadId);
    // Stryker disable next-line ConditionalExpression: with room, every thread waiting was woken already (wake runs at every place freed); kept so a late one cannot pass the line
    if (!woken && (this.#waiting.size > 0 || this.#used() >= this.max)) {
      // A thread waiting already keeps its place (a Map keeps the first insertion's order).
      this.#waiting.set(threadId, { gateway, thread });
      this.#warn();
      return false;
    }
    this.#taking += 1;
    return true;
  }

  /** Says the cap binds: at the first thread waiting, then at most once a minute while any wait. */
  #warn(): void {
    const now = Date.now();
    if (now - this.#warnedAt < WARN_EVERY_MS) return;
    this.#warnedAt = now;
    this.d.logger.warn(
      { max: this.max, waiting: this.#waiting.size },
      "holding the most threads allowed at once: more threads wait for room, their messages queued (raise the store datasource's maxHeldThreads, or AGENTSVC_MAX_HELD_THREADS)",
    );
  }

  /** A reserved take has answered: its lock is counted held by now, or was not taken. */
  taken(): void {
    this.#taking -= 1;
    this.wake();
  }

  /** Places freed (a lock given back or lost): waiting threads are taken, oldest first, one per place. */
  wake(): void {
    // Stopping: each take returns at once (a poke takes nothing then), leaving the messages queued.
    for (const [threadId, w] of this.#waiting) {
      if (this.#used() >= this.max) return;
      this.#waiting.delete(threadId);
      this.#woken.add(threadId);
      // A take that never reached `reserve` (stopping, a turn lost here winding down, a claim of the
      // thread already in flight) frees its place; the thread's messages are then the sweep's.
      const work = this.d.take(w.gateway, w.thread).finally(() => {
        this.#woken.delete(threadId);
        this.wake();
      });
      this.d.track(work);
    }
  }
}
