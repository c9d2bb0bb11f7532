// Which gateway threads this instance runs, when several instances share one store. A thread is
// run by the instance holding its lock (Coordination.acquireThread); taking it adopts what the
// store holds for it (a suspended turn, a recorded decision, queued messages, a turn a dead
// instance left half done), and an idle or suspended thread is let go, so any instance can take
// it next. Messages recorded by an instance that does not hold the thread are announced to the
// holder; a sweep finds any whose announcement was lost, and the threads of a dead instance.
import type { ClusterMessage, Coordination, HeldLock } from "./coordination.js";
import { DEFAULT_MAX_HELD_THREADS, HeldCap } from "./held-cap.js";
import { HoldStretch } from "./hold-stretch.js";
import { ThreadHolds } from "./hold-timers.js";
import { RecentLetGos } from "./recent-let-gos.js";
import type { SessionParts } from "./parts.js";
import type { InboxRecord } from "./store.js";
import { sweepUnheld } from "./sweep.js";
import { gatewayThreadId, type QueuedMessage, type ThreadState } from "./threads.js";

export interface OwnershipHooks {
  /** Loads the stored state of one thread into this instance (recovery, scoped to the thread). */
  adopt(gateway: string, thread: string): Promise<void>;
  /** Applies the busy policy to a message, as for one delivered here. */
  onMessage(state: ThreadState, msg: QueuedMessage): Promise<void>;
}

/** Holds ending this close after the oldest's end with it: their give-backs share one statement. */
const LET_GO_GATHER_MS = 500;
/** A record an announcement carried, and the records older than it that must be taken first (`prior`). */
export interface Carried {
  msg: QueuedMessage;
  prior: number[];
}

/** Claims of one message that may find the thread let go meanwhile before it is left to others. */
const STALE_CLAIM_ATTEMPTS = 3;
/**
 * A claim's answer: held here now, held by another instance (`announced`: and the message its
 * claimer gave announced to it with the take), or not taken for another reason.
 */
type Claim = "held" | "elsewhere" | "announced" | "free";

export class Ownership {
  readonly #held = new Set<string>();
  readonly #claiming = new Map<string, Promise<Claim>>();
  readonly #adopting = new Set<string>();
  /** Locks being given back: a new claim of the thread waits, or it would count a lock that is going. */
  readonly #releasing = new Map<string, Promise<void>>();

  /** Threads kept after their last work, let go in groups; suspended ones for less (hold-timers.ts). */
  readonly #lettingGo: ThreadHolds;
  readonly #stretch: HoldStretch; // each idle thread's hold: longer for one taken back soon (hold-stretch.ts)
  /** The cap on threads held at once (held-cap.ts). */
  readonly #cap: HeldCap;
  /** Threads let go lately: an announcement of one is looked at (recent-let-gos.ts). */
  readonly recentlyLet = new RecentLetGos();

  constructor(
    private readonly p: SessionParts,
    private readonly coordination: Coordination,
    private readonly hooks: OwnershipHooks,
    private readonly options: { holdMs: number; maxHeld?: number } = { holdMs: 0 },
  ) {
    this.#lettingGo = new ThreadHolds(options.holdMs, LET_GO_GATHER_MS);
    this.#stretch = new HoldStretch(options.holdMs);
    this.#cap = new HeldCap(options.maxHeld ?? DEFAULT_MAX_HELD_THREADS, {
      locks: () => this.#held.size + this.#releasing.size,
      take: (gateway, thread) => this.poke(gateway, thread),
      track: (work) => p.track(work),
      logger: p.logger,
    });
  }

  get shared(): boolean {
    return this.coordination.shared;
  }

  /** Locks being given back now: none once they are back (a long-running service lets go of many threads). */
  get givingBack(): number {
    return this.#releasing.size;
  }

  /** Several instances: whether this one holds any thread now (one at rest holds none). */
  get holdsAny(): boolean {
    return this.#held.size > 0;
  }

  holds(threadId: string): boolean {
    return !this.shared || this.#held.has(threadId);
  }

  /** True when this instance may run the thread now; takes and adopts it first when needed. */
  async claim(gateway: string, thread: string): Promise<boolean> {
    return (await this.#claim(gateway, thread)) === "held";
  }

  /**
   * `announce`: sent to the holder with the take when another instance holds the thread (where
   * the coordination can), answered `announced`. Only to the claim that starts the take: one that
   * joins a take in flight may have committed its message after that take's statement was sent.
   */
  #claim(gateway: string, thread: string, announce?: ClusterMessage): Promise<Claim> {
    if (!this.shared) return Promise.resolve("held");
    const threadId = gatewayThreadId(gateway, thread);
    // A claim in progress first: the thread counts as held only once its stored state is adopted.
    let claiming = this.#claiming.get(threadId);
    if (!claiming && this.#held.has(threadId)) return Promise.resolve("held");
    // A turn of a thread lost here is still winding down: not until it is forgotten.
    if (!claiming && this.p.threads.peek(gateway, thread)?.lost) return Promise.resolve("free");
    if (claiming) return claiming.then((c) => (c === "announced" ? "elsewhere" : c));
    claiming = this.#take(gateway, thread, threadId, announce).finally(() => this.#claiming.delete(threadId));
    this.#claiming.set(threadId, claiming);
    return claiming;
  }

  async #take(gateway: string, thread: string, threadId: string, announce?: ClusterMessage): Promise<Claim> {
    await this.#releasing.get(threadId);
    if (!this.#cap.reserve(gateway, thread, threadId)) {
      // No room: the thread waits, its messages queued in the store. An idle thread kept for its
      // next message makes room now. Announced as free (dispatch): an instance with room may take it.
      this.#letGoIdleNow();
      return "free";
    }
    let acquired: boolean | "announced" = false;
    try {
      acquired = await this.#acquire(threadId, announce);
      if (acquired === true) this.#held.add(threadId);
    } finally {
      this.#cap.taken();
    }
    if (acquired === "announced") return "announced";
    if (!acquired) return "elsewhere";
    this.#stretch.taken(threadId);
    this.p.logger.debug({ threadId }, "took a thread");
    // What this process remembers of the thread may be stale: another instance ran it meanwhile.
    this.p.runs.release?.(threadId);
    this.#adopting.add(threadId);
    try {
      await this.hooks.adopt(gateway, thread);
    } catch (err) {
      this.p.logger.error({ err, threadId }, "could not take over a thread; letting it go");
      this.#held.delete(threadId);
      this.#stretch.forget(threadId);
      await this.#giveBack(threadId);
      return "free";
    } finally {
      this.#adopting.delete(threadId);
    }
    return "held";
  }

  /** The thread's lock taken here (true), or not; with `announce`, announced to the holder with the take. */
  async #acquire(threadId: string, announce?: ClusterMessage): Promise<boolean | "announced"> {
    if (!announce || !this.coordination.acquireOrAnnounce) return this.coordination.acquireThread(threadId);
    const answer = await this.coordination.acquireOrAnnounce(threadId, announce);
    return answer === "announced" ? answer : answer === "acquired";
  }

  /** Messages of the thread recorded (anywhere) and not yet taken here, oldest first. */
  async takeFresh(state: ThreadState): Promise<void> {
    const rows = await this.p.store.inbox.queued(state.gateway, state.thread);
    for (const rec of rows) {
      if (state.taken.has(rec.id)) continue;
      state.taken.add(rec.id);
      await this.hooks.onMessage(state, messageOf(rec));
    }
  }

  /**
   * Runs after every change to a held thread (inside its lock): a thread with nothing running or
   * queued here is let go, unless the store has messages for it that were not taken yet. With
   * `holdMs`, it is let go only after that long without work: a thread's next message tends to
   * follow soon, and taking the thread back on another instance costs a lock, an adoption and a
   * release, while a message recorded elsewhere meanwhile is announced to this holder.
   */
  async settle(state: ThreadState): Promise<void> {
    if (!this.shared || !this.#held.has(state.threadId) || this.#adopting.has(state.threadId)) return;
    this.#lettingGo.cancel(state.threadId);
    if (hasWork(state)) return;
    // Threads waiting for room: let go at once, not kept for a next message.
    if (this.options.holdMs > 0 && !this.p.stopping() && this.#cap.waiting === 0) {
      this.#letGoLater(state.gateway, state.thread, state.threadId, state.active?.phase === "suspended");
      return;
    }
    await this.#letGo(state);
  }

  /** The oldest thread kept after its last work is let go now (another thread waits for room). */
  #letGoIdleNow(): void {
    this.#lettingGo.fireOldest();
  }

  #letGoLater(gateway: string, thread: string, threadId: string, suspended: boolean): void {
    const fire = () => {
      if (this.p.stopping()) return;
      this.p.track(
        this.p.threads.with(gateway, thread, async (state) => {
          if (!this.#held.has(threadId)) {
            if (!state.active && state.queue.length === 0) this.p.threads.drop(gateway, thread);
            return;
          }
          // Picked while taking work again (its let-go is cancelled when that change settles): a
          // thread waiting for room gets the next kept one's.
          const gone = !this.#adopting.has(threadId) && !hasWork(state) && (await this.#letGo(state));
          if (!gone && this.#cap.waiting > 0) this.#letGoIdleNow();
        }),
      );
    };
    this.#lettingGo.keep(threadId, suspended, fire, this.#stretch.tier(threadId));
  }

  /** The last look for messages not taken yet, then the lock given back (true) unless it found some. */
  async #letGo(state: ThreadState): Promise<boolean> {
    await this.takeFresh(state);
    if (hasWork(state)) return false;
    this.p.logger.debug({ threadId: state.threadId }, "let a thread go");
    this.p.threads.drop(state.gateway, state.thread);
    this.p.runs.release?.(state.threadId);
    this.#held.delete(state.threadId);
    this.recentlyLet.add(state.threadId);
    this.#stretch.letGo(state.threadId);
    await this.#giveBack(state.threadId);
    return true;
  }

  /** Gives a lock back; it counts under the cap until the server has it back. */
  async #giveBack(threadId: string): Promise<void> {
    const releasing = this.coordination.releaseThread(threadId).finally(() => {
      if (this.#releasing.get(threadId) === releasing) this.#releasing.delete(threadId);
      this.#cap.wake();
    });
    this.#releasing.set(threadId, releasing);
    await releasing;
  }

  /**
   * Takes the thread when nobody holds it, then its messages not taken yet: `carried` (a record an
   * announcement carried) without a read when every record it follows was taken here.
   */
  async poke(gateway: string, thread: string, carried?: Carried): Promise<void> {
    if (this.p.stopping()) return;
    await this.withHeld(gateway, thread, async (state) => {
      if (!carried?.prior.every((id) => state.taken.has(id))) return this.takeFresh(state);
      if (state.taken.has(carried.msg.inboxId)) return;
      state.taken.add(carried.msg.inboxId);
      await this.hooks.onMessage(state, carried.msg);
    });
  }

  /**
   * Runs `fn` inside the thread's lock while this instance holds the thread (`ran`); `elsewhere`
   * when another instance holds its lock, `free` when it could not be taken here for another
   * reason (a turn lost here winding down, its state unreadable); `announced` when another holds it
   * and `announce` went to it with the take. Held is checked again inside the lock: a claim answered
   * from `#held` goes stale while it waits behind the change that lets the thread go (`settle`), and
   * a turn started then would run without the lock, its commit refused by the fence (#45.5).
   */
  async withHeld(
    gateway: string,
    thread: string,
    fn: (state: ThreadState) => Promise<void>,
    announce?: ClusterMessage,
  ): Promise<"ran" | Exclude<Claim, "held">> {
    for (let attempt = 0; attempt < STALE_CLAIM_ATTEMPTS; attempt++) {
      const claim = await this.#claim(gateway, thread, announce);
      if (claim !== "held") return claim;
      const ran = await this.p.threads.with(gateway, thread, async (state) => {
        if (!this.holds(state.threadId)) {
          // A state made for nothing (the one let go was dropped): not kept for a thread not held.
          if (!state.active && state.queue.length === 0) this.p.threads.drop(gateway, thread);
          return false;
        }
        await fn(state);
        return true;
      });
      if (ran) return "ran";
    }
    this.p.logger.debug(
      { gateway, thread },
      "a thread was let go each time it was claimed; left to the sweep",
    );
    return "free";
  }

  /** `claim`, retried for a while: the holder may be letting the thread go right now. */
  async claimSoon(gateway: string, thread: string, attempts = 20): Promise<boolean> {
    for (let i = 0; i < attempts; i++) {
      if (await this.claim(gateway, thread)) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  }

  /** Work nobody runs, taken here (sweep.ts). True when some thread was old enough to look at. */
  sweep(minAgeMs = 0): Promise<boolean> {
    return sweepUnheld(
      {
        parts: this.p,
        coordination: this.coordination,
        skip: (threadId) => this.holds(threadId) || this.#cap.isWaiting(threadId),
        poke: (gateway, thread) => this.poke(gateway, thread),
      },
      minAgeMs,
    );
  }

  /**
   * The connection holding our locks dropped (or a fence found a lock gone): every thread may be
   * running elsewhere now. A turn running here is cancelled and will not commit (the fence stops
   * it); the rest of what this instance knew of the thread is forgotten.
   */
  lost(keys: readonly string[]): void {
    for (const threadId of keys) {
      const state = this.p.threads.byId(threadId);
      if (this.#held.has(threadId) || state)
        this.p.logger.warn({ threadId }, "lost the lock of a thread; another instance may take it over");
      this.#held.delete(threadId);
      this.#lettingGo.cancel(threadId);
      this.#stretch.forget(threadId);
      if (!state) continue;
      if (state.active?.phase === "running") {
        if (state.lost) continue;
        state.lost = true;
        this.p.runs.cancel(threadId, { userId: state.gateway }, "this instance lost the thread's lock");
      } else {
        this.forget(state);
      }
    }
    this.#cap.wake();
  }

  /** Rejects (and loses the thread) unless the coordination says this instance holds it now. */
  async fence(state: ThreadState): Promise<void> {
    if (!this.shared || !this.coordination.fence) return;
    try {
      await this.coordination.fence(state.threadId);
    } catch (err) {
      throw this.#refused(state, err);
    }
  }

  /**
   * Runs the write ending a turn of the thread: with the lock its statement checks once it has
   * locked the record (the fence folded into the commit: coordination and store both can), or
   * followed by `fence` (same transaction). A refusal either way loses the thread.
   */
  async fenced(
    state: ThreadState,
    write: (lock: HeldLock | undefined, fenceAfter: boolean) => Promise<void>,
  ): Promise<void> {
    let lock: HeldLock | undefined;
    if (this.shared && this.coordination.heldLock && this.p.store.inbox.finish) {
      try {
        lock = this.coordination.heldLock(state.threadId);
      } catch (err) {
        throw this.#refused(state, err);
      }
    }
    // A fence asked after the write must find it uncommitted (the transaction open), to undo it.
    const fenceAfter = !lock && this.shared && this.coordination.fence !== undefined;
    try {
      await write(lock, fenceAfter);
    } catch (err) {
      if (lock && (err as { code?: unknown } | undefined)?.code === "lock_not_held") {
        // Asked of the coordination too: a lock its server says is gone stops counting as held there,
        // so the next claim takes the thread again instead of running it on that count (#45.5).
        await this.coordination.fence?.(state.threadId).catch(() => undefined);
        throw this.#refused(state, err);
      }
      throw err;
    }
    if (!lock) await this.fence(state);
  }

  /** A commit refused for want of the lock: the running turn is marked so it winds down uncommitted. */
  #refused(state: ThreadState, cause: unknown): Error {
    this.lost([state.threadId]);
    return new Error(`thread ${state.threadId}: not committed, this instance no longer holds it`, { cause });
  }

  /** Forgets a thread: its state, what the RunManager kept of it, and that it was held. */
  forget(state: ThreadState): void {
    this.#lettingGo.cancel(state.threadId);
    this.p.threads.drop(state.gateway, state.thread);
    this.p.runs.release?.(state.threadId);
    // Stryker disable next-line CallExpression: both callers come after lost() deleted it (its else branch; a turn ending with state.lost)
    this.#held.delete(state.threadId);
  }
}

function hasWork(state: ThreadState): boolean {
  return state.active?.phase === "running" || state.queue.length > 0;
}

/** A recorded inbox row as the thread's queue holds it. */
export function messageOf(rec: InboxRecord): QueuedMessage {
  return {
    inboxId: rec.id,
    text: rec.text,
    origin: rec.origin,
    ...(rec.attachments?.length ? { attachments: rec.attachments } : {}),
  };
}
