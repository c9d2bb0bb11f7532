// Several instances: who sends which outbox pieces. A thread's pieces fall in one of
// OUTBOX_PARTITIONS partitions, and partition i is sent by whoever leads the role `outbox:<i>`
// (one instance at a time: the role's lock). The session leader leads them all and sends
// everything, the cheapest way to keep each thread's order. When one pass of its sender has sent
// BACKLOG_PIECES pieces and the queue is still not empty, it asks the others to help
// (`outbox-help`); a helper that queues for the roles answers (`outbox-help` with `helping`), and
// only once one answered does the leader give partitions 1..n-1 up: a helper takes at most
// HELPER_SHARE of them, the leader queues again behind the helpers at once (taking back what a
// helper gives back as soon as it is announced, and what nobody took LEADER_REQUEUE_MS later), and a
// helper whose partitions had nothing due for HELPER_IDLE_MS gives them back. Unanswered (one
// instance), it keeps sending everything and asks again LEADER_REQUEUE_MS later at the earliest.
// Partition 0, which also holds every thread of a gateway with a platform connection (started on
// the leader only), stays with the leader.
//
// Per-thread order and exactly-once: a thread is in one partition, a partition is sent by one
// instance at a time, and an instance gives a partition up only once its sender's batch in flight
// is over, so the next holder never reads a head that is still being sent. A holder whose
// connection dropped loses its roles with its locks, like a leader (a piece it was sending may go
// again, with the same idempotency key). One whose connection is gone unnoticed reads nothing more
// to send: each due read checks that its link's session holds the roles (outbox-fence.ts).
import type { Logger } from "pino";
import { announce, type Coordination } from "./coordination.js";
import { roleFence } from "./outbox-fence.js";
import { inShare, type OutboxShare } from "./outbox-partition.js";
import type { OutboxSender } from "./outbox-sender.js";
import type { OutboxRow } from "./store.js";

/** Partitions of the outbox's threads (roles `outbox:0` .. `outbox:3`). */
export const OUTBOX_PARTITIONS = 4;
/** Pieces one pass of the leader's sender sends, with more still due, before it asks for help. */
export const BACKLOG_PIECES = 64;
/** Partitions one helping instance takes at most. */
const HELPER_SHARE = 2;
/** A helper gives its partitions back after this long with nothing due in them. */
const HELPER_IDLE_MS = 5_000;
/** How long the leader waits after asking for help before it gives partitions up (helpers queue meanwhile). */
const HELP_LINE_UP_MS = 200;
/**
 * How long after giving partitions up the leader first tries one nobody took. It is in line for
 * them at once: one a helper takes and gives back (beyond its share, or idle) is taken as its
 * release is announced. Before, the leader queued only this long after, and a partition given back
 * meanwhile had no sender until then (#45.3: the replies' commit -> send p99 on three instances).
 */
const LEADER_REQUEUE_MS = 2_000;

export interface OutboxSharesDeps {
  coordination: Coordination;
  sender: OutboxSender;
  /** True for a gateway whose pieces only the leader sends (one with a platform connection, or unknown). */
  pinned(gateway: string): boolean;
  /** The names of the gateways registered here (their threads are spread by hash unless pinned). */
  gateways(): readonly string[];
  logger: Logger;
  stopping(): boolean;
  /** A helper gives its partitions back after this long with nothing due in them (default 5 s). */
  helperIdleMs?: number;
}

export class OutboxShares {
  /** Role handles (stop functions) of the partitions this instance holds or queues for. */
  readonly #queued = new Map<number, () => Promise<void>>();
  /** Partitions this instance holds now. */
  readonly #mine = new Set<number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #leading = false;
  #helping = false;
  /** The leader gave partitions up and has not held them all since. */
  #sharing = false;
  #idleSince: number | undefined;
  /** Offers of help so far: a check timed for an earlier offer is not this one's. */
  #helps = 0;
  /** This leader's asks for help so far: a timer or an answer for an earlier ask is not this one's. */
  #asks = 0;
  /** The ask in progress: whether a helper answered, whether its line-up is over, whether partitions went. */
  #ask: { answered: boolean; linedUp: boolean; given: boolean } | undefined;

  constructor(private readonly d: OutboxSharesDeps) {
    d.sender.pressure = {
      backlogAfter: BACKLOG_PIECES,
      backlog: () => this.#backlog(),
      passed: (sent) => this.#passed(sent),
    };
  }

  /** This instance leads the session: it queues for every partition. */
  lead(): void {
    this.#leading = true;
    this.#helping = false;
    for (let i = 0; i < OUTBOX_PARTITIONS; i++) this.#queue(i);
  }

  /** No longer the leader: every partition is given up (helpers and the next leader queue for them). */
  async unlead(): Promise<void> {
    this.#leading = false;
    this.#sharing = false;
    await this.#giveUp([...this.#queued.keys()]);
  }

  /**
   * Another instance asked for help with a backlog: queue for the partitions it gives up, and say so
   * (the leader gives none up unanswered). A helper already in the line answers again.
   */
  help(): void {
    if (this.#leading || this.d.stopping()) return;
    announce(this.d.coordination, this.d.logger, { kind: "outbox-help", helping: true });
    if (this.#helping) return;
    this.#helping = true;
    this.#idleSince = undefined;
    this.d.logger.info("outbox: another instance has a backlog; helping to send it");
    for (let i = 1; i < OUTBOX_PARTITIONS; i++) this.#queue(i);
    this.#unserved(++this.#helps);
  }

  /** A helper answered the leader's ask: the partitions go once the line-up is over (at once if it is). */
  helping(): void {
    const ask = this.#ask;
    if (!this.#leading || !ask || ask.answered) return;
    ask.answered = true;
    if (ask.linedUp) this.#share(ask);
  }

  /**
   * A helper given no partition runs no sender, so no pass tells it the backlog is over (#passed):
   * it would queue for the roles for good, a lock try on each every retry period at rest, to take
   * one only when the others give it up (a take, an empty pass and a give-back). Still given none
   * HELPER_IDLE_MS after it offered help, it leaves the line, as a helper idle that long does.
   */
  #unserved(help: number): void {
    this.#later(this.d.helperIdleMs ?? HELPER_IDLE_MS, () => {
      if (help !== this.#helps || !this.#helping || this.#mine.size > 0) return;
      this.#helping = false;
      this.d.logger.info("outbox: given no partition to help with; leaving the line");
      void this.#giveUp([...this.#queued.keys()]);
    });
  }

  async stop(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#leading = false;
    this.#helping = false;
    await this.#giveUp([...this.#queued.keys()]);
  }

  /** In line for `partition`'s role; with `tryAfterMs`, a free one is tried only that long after. */
  #queue(partition: number, tryAfterMs?: number): void {
    if (this.#queued.has(partition)) return;
    // Set first: a free role may be granted inside lead() (giving it up again reads `stop` later).
    let stop: (() => Promise<void>) | undefined;
    this.#queued.set(partition, () => stop?.() ?? Promise.resolve());
    stop = this.d.coordination.lead(
      `outbox:${partition}`,
      { onLead: () => this.#gained(partition), onLose: () => this.#lost(partition) },
      tryAfterMs === undefined ? undefined : { tryAfterMs },
    );
  }

  #gained(partition: number): void {
    this.#mine.add(partition);
    if (!this.#leading) {
      // A helper keeps its share and leaves the rest to the others.
      if (this.#mine.size > HELPER_SHARE) {
        void this.#giveUp([partition]);
        return;
      }
      if (this.#mine.size === HELPER_SHARE)
        void this.#giveUp([...this.#queued.keys()].filter((p) => !this.#mine.has(p)));
    } else if (this.#mine.size === OUTBOX_PARTITIONS) this.#sharing = false;
    this.#apply();
  }

  #lost(partition: number): void {
    this.#mine.delete(partition);
    this.#apply();
  }

  /** Tells the sender what it may send, and runs it while this instance holds any partition. */
  #apply(): void {
    const { sender, pinned } = this.d;
    // Each due read checks that this instance's link still holds the roles (outbox-fence.ts).
    const fence = roleFence(
      this.d.coordination,
      [...this.#mine].map((p) => `outbox:${p}`),
    );
    if (this.#mine.size === OUTBOX_PARTITIONS) sender.restrict(undefined, fence);
    else {
      const parts = [...this.#mine];
      // Asked at each read, as `pinned` was of each row: what the registry holds then.
      const share = (): OutboxShare => ({
        of: OUTBOX_PARTITIONS,
        parts,
        hashed: this.d.gateways().filter((name) => !pinned(name)),
      });
      sender.restrict((row: OutboxRow) => inShare(share(), row), fence, share);
    }
    if (this.#mine.size > 0) {
      if (!sender.running) sender.start();
      // Its own share changed, nothing was queued: not passed on to the other senders (each reads
      // as its own roles change; passed on, it woke every running sender for a due read).
      else sender.wake(true);
    } else if (sender.running) void sender.stop();
  }

  /** Stops sending `partitions`, waits for the batch in flight, then leaves their roles. */
  async #giveUp(partitions: number[]): Promise<void> {
    if (partitions.length === 0) return;
    // A line left before its partition came: nothing of it is being sent here, so no batch to wait for
    // (waiting, the partition could come meanwhile, to be given up again: a take, a give-back and a release).
    const held = partitions.some((p) => this.#mine.has(p));
    const stops = partitions.flatMap((p) => {
      const stop = this.#queued.get(p);
      this.#queued.delete(p);
      this.#mine.delete(p);
      return stop ? [stop] : [];
    });
    this.d.logger.debug({ partitions }, "outbox: giving partitions up once the sends in flight are over");
    if (held) {
      this.#apply();
      await this.d.sender.drained();
    }
    // Together: their give-backs share one statement on the link (one after another, one each).
    await Promise.all(stops.map((stop) => stop()));
  }

  #later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.#timers.add(timer);
  }

  #backlog(): void {
    if (!this.#leading || this.#sharing || this.d.stopping()) return;
    this.#sharing = true;
    this.d.logger.info(
      { pieces: BACKLOG_PIECES },
      "outbox: backlog; asking the other instances to help send",
    );
    announce(this.d.coordination, this.d.logger, { kind: "outbox-help" });
    const asked = ++this.#asks;
    const ask = { answered: false, linedUp: false, given: false };
    this.#ask = ask;
    this.#later(HELP_LINE_UP_MS, () => {
      ask.linedUp = true;
      if (ask.answered) this.#share(ask);
    });
    // Nobody answered (one instance): nothing was given up, so nothing to wait for; one more ask
    // after a while finds instances started since. Before, the leader gave partitions 1-3 up
    // anyway, and three quarters of the backlog waited LEADER_REQUEUE_MS for it each time.
    this.#later(HELP_LINE_UP_MS + LEADER_REQUEUE_MS, () => {
      if (asked !== this.#asks || ask.given) return;
      this.#ask = undefined;
      this.#sharing = false;
    });
  }

  /**
   * Gives partitions 1..n-1 up (a helper answered `ask`), and queues for them again once they are
   * released: a free one is tried LEADER_REQUEUE_MS later, one a helper gives back at once.
   */
  #share(ask: { given: boolean }): void {
    if (!this.#leading || ask.given || ask !== this.#ask) return;
    ask.given = true;
    const given = [...this.#mine].filter((p) => p !== 0);
    void this.#giveUp(given).then(() => {
      if (this.#leading) for (const p of given) this.#queue(p, LEADER_REQUEUE_MS);
    });
  }

  #passed(sent: number): void {
    if (!this.#helping) return;
    if (sent > 0) {
      this.#idleSince = undefined;
      return;
    }
    const now = Date.now();
    if (this.#idleSince === undefined) {
      this.#idleSince = now;
      // Its part of the backlog is sent: a partition it queues for but does not hold would come to
      // it only as another helper, idle too, gives it back, to be given back again HELPER_IDLE_MS
      // later (a take, a give-back and a release each time). The leader queues for them.
      void this.#giveUp([...this.#queued.keys()].filter((p) => !this.#mine.has(p)));
    }
    if (now - this.#idleSince < (this.d.helperIdleMs ?? HELPER_IDLE_MS)) return;
    this.#helping = false;
    this.d.logger.info("outbox: the backlog is sent; giving the partitions back");
    void this.#giveUp([...this.#queued.keys()]);
  }
}
