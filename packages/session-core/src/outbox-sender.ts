// Drains the durable outbox: each thread's pieces in order, threads side by side, every failure
// retried with exponential backoff + jitter (the platform's retry-after honoured), and a piece
// that keeps failing dead-lettered and logged. A piece is marked sent only after the platform
// accepted it, so a crash in between sends it again with the same idempotency key. A piece whose
// platform rejected the gateway's credentials stays pending, its attempt not counted: the gateway
// is held (nothing more is sent through it) and stopped until the configuration is fixed.
// This file holds when passes run (wakes, the timed look) and what a pass reads; one piece's send
// is outbox-send-one.ts, the due read's paging outbox-due-read.ts.
import type { Logger } from "pino";
import type { GatewaySendError } from "@agentsvc/adapter-kit";
import type { Gateway } from "./gateway.js";
import { sendableDue } from "./outbox-due-read.js";
import { RefusedRoles, type RoleFence } from "./outbox-fence.js";
import { OUTBOX_IDLE_POLL_MS } from "./outbox-look.js";
import type { OutboxShare } from "./outbox-partition.js";
import { type SendOneDeps, sendOne } from "./outbox-send-one.js";
import { inWaves, READ_AHEAD } from "./outbox-waves.js";
import { cutPause, DEFAULT_MAX_ATTEMPTS, type OutboxOptions, WAKE_SPACING_MS } from "./outbox-options.js";
import type { GatewayRegistry } from "./registry.js";
import type { SessionObserver } from "./observer.js";
import type { OutboxRow, SessionStore } from "./store.js";
import type { Previews } from "./streaming.js";

export class OutboxSender {
  readonly #store: SessionStore;
  readonly #logger: Logger;
  readonly #baseDelayMs: number;
  readonly #idlePollMs: number;
  readonly #concurrency: number;
  #running = false;
  /** The pass running, or waiting for its start. */
  #pumping: Promise<void> | undefined;
  /** A pass runs (not waiting for its start): a wake now asks for one more pass after it. */
  #passing = false;
  #again = false;
  /**
   * When the last pass that found pieces started: a woken pass starts WAKE_SPACING_MS after it at
   * the earliest.
   */
  #busyPassAt = Number.NEGATIVE_INFINITY;
  #found = 0; // pieces the last pass read
  /** Ends the wait of a pass for its start at once (stop). */
  #cutWait: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  /**
   * The last pass ended on a store error: the timed look after it waits baseDelayMs. Its first
   * value is never read: every pass sets it first (#pump), and only the look after a pass reads it.
   */
  // Stryker disable next-line BooleanLiteral: never read before a pass sets it
  #storeFailed = false;
  /** The timed look could not read the next due time: the pass it runs does not read it again. */
  #lookFailed = false;
  /** Due reads refused for want of a role: none more until `restrict` or `start` (outbox-fence.ts). */
  readonly #roles = new RefusedRoles();

  readonly #elsewhere: (() => void) | undefined;
  /** Gateways whose credentials were rejected: their pieces wait, unsent and uncounted. */
  readonly #held = new Set<string>();
  /** What sending one piece needs (outbox-send-one.ts). */
  readonly #sendDeps: SendOneDeps;
  /**
   * Several instances: the pieces this one may send (its partitions, outbox-shares.ts); all when
   * unset.
   */
  #mine: ((row: OutboxRow) => boolean) | undefined;
  #fence: (() => RoleFence) | undefined;
  #share: (() => OutboxShare) | undefined;
  #batch: Promise<unknown> | undefined; // the sends in flight
  /**
   * Told how each pass went: a backlog once `backlogAfter` pieces were read in one pass, and what
   * a pass sent.
   */
  pressure: { backlogAfter: number; backlog(): void; passed(sent: number): void } | undefined;

  constructor(input: {
    store: SessionStore;
    registry: GatewayRegistry;
    loggerFor: (gateway: Gateway) => Logger;
    logger: Logger;
    options?: OutboxOptions;
    /** Called by `wake` while this sender is not running (another instance sends). */
    elsewhere?: () => void;
    /** A send failed with rejected credentials: the gateway is already held here; stop it. */
    onCredentials?: (gateway: Gateway, error: GatewaySendError) => void;
    /** Streamed previews: a reply's first piece finishes its draft instead of adding a message. */
    drafts?: Previews;
    observer?: SessionObserver;
  }) {
    this.#elsewhere = input.elsewhere;
    this.#store = input.store;
    this.#logger = input.logger;
    this.#baseDelayMs = input.options?.baseDelayMs ?? 1_000;
    this.#sendDeps = {
      store: input.store,
      registry: input.registry,
      logger: input.logger,
      observer: input.observer,
      drafts: input.drafts,
      fileUrl: input.options?.fileUrl,
      sendTimeoutMs: input.options?.sendTimeoutMs ?? 60_000,
      failure: {
        store: input.store,
        loggerFor: input.loggerFor,
        held: this.#held,
        onCredentials: input.onCredentials,
        maxAttempts: input.options?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        baseDelayMs: this.#baseDelayMs,
        maxDelayMs: input.options?.maxDelayMs ?? 300_000,
      },
    };
    this.#concurrency = input.options?.concurrency ?? 8;
    this.#idlePollMs = input.options?.idlePollMs ?? OUTBOX_IDLE_POLL_MS;
  }

  get running(): boolean {
    return this.#running;
  }

  start(): void {
    this.#running = true;
    this.#roles.given();
    this.wake(true); // nothing was queued: nobody else need look
  }

  /**
   * From the next batch on, sends only the pieces `mine` accepts (all when undefined); `fence`: what
   * each due read checks the roles it sends for with (outbox-fence.ts; none when undefined);
   * `share`: the partitions `mine` accepts, named to the store's due read so it returns only those
   * (outbox-partition.ts; a store that ignores it returns all, and `mine` filters them).
   */
  restrict(
    mine: ((row: OutboxRow) => boolean) | undefined,
    fence?: () => RoleFence,
    share?: () => OutboxShare,
  ): void {
    this.#mine = mine;
    this.#fence = fence;
    this.#share = mine ? share : undefined;
    this.#roles.given();
  }

  /** Resolves once the batch in flight (read before a `restrict`) is over. */
  async drained(): Promise<void> {
    await this.#batch?.catch(() => {});
  }

  /**
   * Something was queued: send what is due now. A sender that is not running passes the wake on
   * to whoever sends (`elsewhere`), unless the wake came from there (`fromElsewhere`): passed back,
   * it would bounce between the instances for good (the leader while its sender stops or starts).
   */
  wake(fromElsewhere = false): void {
    if (!this.#running || this.#roles.refused) {
      if (!fromElsewhere) this.#elsewhere?.();
      return;
    }
    // Restricted to some partitions: what was queued may be another sender's to send.
    if (this.#mine && !fromElsewhere) this.#elsewhere?.();
    if (this.#pumping) {
      // A pass waiting for its start reads what was queued by then: nothing more to ask for.
      if (this.#passing) this.#again = true;
      return;
    }
    // Wakes during a pass that found pieces, or soon after its start, share one pass WAKE_SPACING_MS
    // after that start (several instances' replies each woke the leader's sender, and each pass
    // found ~2 pieces); a wake after a quieter spell, or after a pass that found none, sends at once.
    this.#begin(this.#busyPassAt + WAKE_SPACING_MS - Date.now());
  }

  /**
   * A pass, after `wait` ms when that is above 0; then the next (asked for meanwhile) or the timed
   * look.
   */
  #begin(wait: number): void {
    const pass = () => {
      this.#passing = true;
      return this.#pump();
    };
    let run: Promise<void>;
    if (wait > 0) {
      const pause = cutPause(wait);
      this.#cutWait = pause.cut;
      run = pause.over.then(() => (this.#running ? pass() : undefined));
    } else run = pass();
    this.#pumping = run.finally(() => {
      this.#passing = false;
      this.#cutWait = undefined;
      this.#pumping = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake(true); // whoever woke it passed the wake on already
      } else void this.#arm();
    });
  }

  /** Sends nothing more through `gateway`; its pending pieces stay as they are. */
  hold(gateway: string): void {
    this.#held.add(gateway);
  }

  /**
   * True when a piece of a gateway that is not held is due now; false while a role is refused
   * (another instance sends).
   */
  async hasDue(now = Date.now()): Promise<boolean> {
    return (await this.#due(now, 1)).length > 0;
  }

  /** Resolves once nothing is due and no send is in flight (tests and shutdown). */
  async settled(): Promise<void> {
    while (this.#pumping) await this.#pumping;
  }

  /** Stops after the sends in flight; pending pieces stay for the next start. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#cutWait?.();
    await this.settled();
  }

  /** The next due time; `failed` when the store could not say (it is logged). */
  async #nextDueAt(): Promise<{ at: number | undefined; failed?: true }> {
    try {
      // A restricted sender names its share here too: it does not wake for others' pieces (#45.3).
      return { at: await this.#store.outbox.nextDueAt(this.#share?.()) };
    } catch (err) {
      this.#logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        "outbox: cannot read the next due time",
      );
      return { at: undefined, failed: true };
    }
  }

  async #arm(): Promise<void> {
    if (!this.#running || this.#roles.refused) return;
    // The look that ran this pass could not read the next due time just now: not asked again.
    const next = this.#lookFailed ? { at: undefined, failed: true as const } : await this.#nextDueAt();
    this.#lookFailed = false;
    // Due now (a thread's next piece after its head went): the pass at once, not a timed look. Not
    // while a gateway is held, the store failed or the sender is restricted (#armAt spaces those).
    if (
      !next.failed &&
      next.at !== undefined &&
      next.at <= Date.now() &&
      this.#held.size === 0 &&
      !this.#storeFailed &&
      !this.#mine &&
      this.#running &&
      !this.#pumping
    ) {
      this.wake(true);
      return;
    }
    // The store is unreachable for now: look again shortly rather than never.
    this.#armAt(next.failed ? Date.now() + this.#baseDelayMs : next.at);
  }

  /**
   * The timed look: one read of the next due time, and a pass only when something is due by then;
   * otherwise the next look is armed from that same read (an idle sender reads once per look, not
   * a due read and then the next due time).
   */
  async #look(): Promise<void> {
    if (!this.#running || this.#pumping || this.#roles.refused) return;
    const next = await this.#nextDueAt();
    if (!this.#running || this.#pumping) return;
    // Something is due, or the store could not say: a pass reads the due pieces themselves.
    if (next.failed || (next.at !== undefined && next.at <= Date.now())) {
      this.#lookFailed = next.failed === true;
      this.wake(true);
      return;
    }
    // Nothing due: as a pass that sent nothing (a helper counts its idle time by these).
    this.pressure?.passed(0);
    this.#armAt(next.at);
  }

  #armAt(nextDueAt: number | undefined): void {
    let next = nextDueAt;
    if (!this.#running || this.#pumping) return;
    clearTimeout(this.#timer);
    // Nothing due soon: look again after idlePollMs for pieces requeued behind our back.
    next = Math.min(next ?? Number.POSITIVE_INFINITY, Date.now() + this.#idlePollMs);
    // Look again in a while, not at once: a held gateway's pieces (due, never sent) hide when the
    // others are due, a restricted sender's due may be others'. Its share named, 2 wake spacings
    // after a pass that found pieces (its next; was 1 s, #45.3).
    const soon = this.#held.size === 0 && !this.#storeFailed && this.#share !== undefined && this.#found > 0;
    if (this.#held.size > 0 || this.#storeFailed || this.#mine)
      next = Math.max(next, Date.now() + (soon ? 2 * WAKE_SPACING_MS : this.#baseDelayMs));
    this.#timer = setTimeout(() => void this.#look(), Math.max(0, next - Date.now()));
    this.#timer.unref();
  }

  async #pump(): Promise<void> {
    // Only the pass that ran last counts: one that went through after a failed one is not held back.
    this.#storeFailed = false;
    // The last pass found a batch or more: this one's first read asks READ_AHEAD batches too. Under
    // steady load a pass's read of one batch came back full, and a second read followed (three
    // instances' restricted senders: 0.10 due reads a message, #45.3).
    const ahead = this.#found >= this.#concurrency;
    this.#found = 0;
    const startedAt = Date.now();
    try {
      // The first read of a pass asks for one batch, or READ_AHEAD batches after a pass that found
      // a batch or more; after a full read, READ_AHEAD batches (outbox-waves.ts).
      const batches = ahead ? READ_AHEAD : 1;
      for (let want = this.#concurrency * batches; this.#running; want = this.#concurrency * READ_AHEAD) {
        const rows = await this.#due(Date.now(), want);
        if (rows.length === 0) break;
        this.#busyPassAt = startedAt;
        // Told as the pieces that reach backlogAfter are read: help is asked for while they go out.
        const after = this.pressure?.backlogAfter ?? Number.POSITIVE_INFINITY;
        if (this.#found < after && this.#found + rows.length >= after) this.pressure?.backlog();
        this.#found += rows.length;
        this.#batch = inWaves(rows, this.#concurrency, this.#still, (row) => sendOne(this.#sendDeps, row));
        await this.#batch;
        // A short read had every due piece: no read that would find none. A piece queued since woke
        // the sender; a thread's next piece is found by the next-due read after every pass (#arm).
        if (rows.length < want) break;
      }
      this.pressure?.passed(this.#found);
    } catch (err) {
      // The store failed (unreachable database, or it refused to mark a piece the platform took):
      // the pieces stay pending and due; #arm looks again after baseDelayMs, not at once, or a
      // piece whose mark keeps failing would be sent over and over.
      this.#storeFailed = true;
      this.#logger.error(
        { err: err instanceof Error ? err.message : String(err) },
        "outbox: the store failed while sending",
      );
    }
  }

  /** A piece this sender may send: its gateway not held, its partition its own. */
  readonly #sendable = (row: OutboxRow): boolean =>
    !this.#held.has(row.gateway) && (this.#mine?.(row) ?? true);

  /** A piece read earlier is still this sender's to send now: running, and sendable. */
  readonly #still = (row: OutboxRow): boolean => this.#running && this.#sendable(row);

  /**
   * Due pieces of gateways that are not held: asks for more while held ones fill the answer. None
   * once refused.
   */
  async #due(now: number, want: number): Promise<OutboxRow[]> {
    return this.#roles.read(
      () => this.#dueRead(now, want),
      (err) =>
        this.#logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          "outbox: not sending: another instance holds this one's outbox roles " +
            "(until this instance's roles change)",
        ),
    );
  }

  async #dueRead(now: number, want: number): Promise<OutboxRow[]> {
    // A restricted sender names its share: the store returns only its partitions' heads (before,
    // every instance's due heads were read and filtered here, #45.3).
    return sendableDue(
      (limit) => this.#store.outbox.due(now, limit, this.#fence?.(), this.#share?.()),
      this.#sendable,
      want,
    );
  }
}
