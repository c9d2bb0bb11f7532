// Several instances: an instance wakes the senders of the others for the replies it commits (an
// `outbox` NOTIFY, at most one per OUTBOX_WAKE_WINDOW_MS from each: 0.04-0.12 a message on three
// instances in the cluster bench, #45.3). A sender whose passes keep finding pieces while others'
// wakes come says instead that it looks on its own (`outbox-awake` with the partitions it sends, at
// most twice per OUTBOX_AWAKE_MS), and passes at least every OUTBOX_WAKE_WINDOW_MS for
// OUTBOX_AWAKE_LOOKS_MS after its last busy pass (AwakeLooks: a wake of its own); an instance that
// heard it, in the last OUTBOX_AWAKE_MS, for every partition it does not send itself sends no wake.
// The looks last three times as long as a hearer keeps quiet, so a hearing late by up to twice that
// is covered. Nothing depends on it but latency: a reply no wake announced is found by its sender's
// timed look.

/** How long an instance keeps its wakes after hearing `outbox-awake` for a partition. */
export const OUTBOX_AWAKE_MS = 1000;
/** How long a sender keeps looking on its own after its last busy pass. */
export const OUTBOX_AWAKE_LOOKS_MS = 3 * OUTBOX_AWAKE_MS;
/** How long after the last wake heard from another instance a sender still says it is awake. */
const OTHERS_WOKE_MS = 10_000;

export class OutboxAwake {
  /** When each partition's sender last said it is awake. */
  readonly #heardAt = new Map<number, number>();
  /** The partitions this instance sends now: its own wakes reach its own sender. */
  #own: readonly number[] = [];
  #saidAt = Number.NEGATIVE_INFINITY;
  #othersWokeAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly partitions: number) {}

  /** Heard `outbox-awake` for `parts`. */
  heard(parts: readonly number[], now = Date.now()): void {
    for (const p of parts) this.#heardAt.set(p, now);
  }

  /** The partitions this instance's sender sends now (none while it sends nothing). */
  own(parts: readonly number[]): void {
    this.#own = parts;
  }

  /** True while every partition this instance does not send was said lately to be looked at: no wake is needed. */
  told(now = Date.now()): boolean {
    for (let p = 0; p < this.partitions; p++) {
      if (this.#own.includes(p)) continue;
      if (!(now - (this.#heardAt.get(p) ?? Number.NEGATIVE_INFINITY) < OUTBOX_AWAKE_MS)) return false;
    }
    return true;
  }

  /** Heard a wake (another instance committed replies). */
  othersWoke(now = Date.now()): void {
    this.#othersWokeAt = now;
  }

  /**
   * This instance's sender made a pass that sent pieces: `say` when it is to say `outbox-awake` now
   * (others woke lately, and it has not said so in the last half of OUTBOX_AWAKE_MS), `looking` when
   * it is to look on its own for OUTBOX_AWAKE_LOOKS_MS. One instance alone says nothing.
   */
  busyPass(now = Date.now()): { say: boolean; looking: boolean } {
    if (now - this.#othersWokeAt >= OTHERS_WOKE_MS) return { say: false, looking: false };
    if (now - this.#saidAt < OUTBOX_AWAKE_MS / 2) return { say: false, looking: true };
    this.#saidAt = now;
    return { say: true, looking: true };
  }
}

/**
 * A sender's own looks while it says it is awake: `wake` (a pass) every `everyMs` until the time
 * `until` set last. The timer does not keep the process alive (an exiting one sends nothing more).
 */
export class AwakeLooks {
  #until = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly wake: () => void,
    private readonly everyMs: number,
  ) {}

  /** Looks on until `at` (ms, Date.now()) at least. */
  until(at: number): void {
    this.#until = Math.max(this.#until, at);
    if (!this.#timer) this.#arm();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#until = Number.NEGATIVE_INFINITY;
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (Date.now() >= this.#until) return;
      this.wake();
      this.#arm();
    }, this.everyMs).unref();
  }
}
