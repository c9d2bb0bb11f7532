// The poll loop of a pull platform (Telegram getUpdates, a /sync long-poll), as one scheduled task:
// fetch from the stored position, deliver each item, store the position after it only once it was
// recorded. A failed fetch waits (the platform's Retry-After, else a backoff of its own, reset by a
// fetch that works: a network failure after failed deliveries waits the first step, not theirs);
// 401/403 stop the gateway naming the variable. A failed delivery stops the batch and backs
// off without a reset, and after `maxItemAttempts` tries (and no sooner than `skipItemAfterMs` after
// its first failure, so a store down for minutes costs no messages) the item is skipped with an
// error log: one poisoned item must neither hold the rest back nor make the loop spin (#43 item 10).
import { Backoff, type BackoffOptions } from "./backoff.js";
import type { GatewayContext } from "./gateway.js";
import { PlatformCallError } from "./platform-fetch.js";
import { classifyFailure, type FailureFacts, type PlatformRule } from "./send-failure.js";

type LoopContext = Pick<
  GatewayContext,
  "logger" | "state" | "credentialsRejected" | "heard" | "platformCallSucceeded" | "reconnected"
>;

export interface PollLoopOptions<Item, Cursor> {
  ctx: LoopContext;
  /** The variable of the credential the fetch uses, named when the platform refuses it. */
  envVar: string;
  /** What is polled, for the log (`getUpdates`). */
  call: string;
  /** Fetches the items after `cursor` (undefined: from where the platform keeps it). */
  fetch(cursor: Cursor | undefined, signal: AbortSignal): Promise<readonly Item[]>;
  /** The position after `item`, stored once it was delivered or skipped. */
  positionAfter(item: Item): Cursor;
  /** Records one item; throws when it was not recorded (it is fetched again, within the bound). */
  deliver(item: Item, signal: AbortSignal): Promise<void>;
  /** Names the item in the log; the same id fetched again is the same item. */
  itemId(item: Item): string | number;
  /** State key of the position. Default `cursor`. */
  cursorKey?: string;
  /** Backoff after a failed fetch or delivery. Default 1 s doubling to 60 s, +20% jitter. */
  backoff?: BackoffOptions;
  /** Wait after a batch handled to its end. Default 0 (a long-poll asks again at once). */
  intervalMs?: number;
  /** Tries of one item before it is skipped. Default 10. */
  maxItemAttempts?: number;
  /** ...and no sooner than this long after its first failure. Default 600 000 ms. */
  skipItemAfterMs?: number;
  /** The platform's own codes for a failed fetch (Telegram: 404 is a malformed token). */
  platformRule?: PlatformRule;
  /** A platform's own words for a failed fetch (Telegram's 409: who else polls); `failures` counts the streak. */
  explain?(facts: FailureFacts, failures: number): { level: "error" | "warn"; message: string } | undefined;
  /**
   * `deafAfter`: when fetches work but no item came for this long, log a warning and restart (call
   * `restart`, count a reconnect). Absent: never.
   */
  deafAfterMs?: number;
  /** What a restart redoes besides the next fetch (Telegram asks getMe again). */
  restart?(): void;
  /** Clock (tests). Default Date.now. */
  now?: () => number;
}

export class PollLoop<Item, Cursor> {
  readonly #o: PollLoopOptions<Item, Cursor>;
  /** Deliveries that failed: reset only by a batch handled to its end. */
  readonly #backoff: Backoff;
  /** Fetches that failed in a row: reset by one that works. */
  readonly #fetchBackoff: Backoff;
  readonly #now: () => number;
  #fetchFailed = false;
  #failing: { id: string | number; attempts: number; since: number } | undefined;
  #lastItemAt: number;
  #reconnects = 0;

  constructor(options: PollLoopOptions<Item, Cursor>) {
    this.#o = options;
    this.#backoff = new Backoff(options.backoff ?? { baseMs: 1_000, maxMs: 60_000 });
    this.#fetchBackoff = new Backoff(options.backoff ?? { baseMs: 1_000, maxMs: 60_000 });
    this.#now = options.now ?? Date.now;
    this.#lastItemAt = this.#now();
  }

  /** Times the connection was re-established: a fetch that worked after one failed, or a deaf restart. */
  get reconnects(): number {
    return this.#reconnects;
  }

  /** One round (the scheduler's task): returns the delay before the next, or null once stopped. */
  async poll(signal: AbortSignal): Promise<number | null> {
    if (signal.aborted) return null;
    const { ctx } = this.#o;
    const key = this.#o.cursorKey ?? "cursor";
    let items: readonly Item[];
    try {
      items = await this.#o.fetch(await ctx.state.get<Cursor>(key), signal);
    } catch (err) {
      if (signal.aborted) return null;
      this.#fetchFailed = true;
      return this.#fetchFailure(err);
    }
    ctx.platformCallSucceeded?.();
    this.#fetchBackoff.reset();
    if (this.#fetchFailed) this.#reconnected();
    this.#fetchFailed = false;
    if (items.length > 0) {
      ctx.heard?.();
      this.#lastItemAt = this.#now();
    } else if (this.#deaf()) {
      return 0;
    }
    for (const item of items) {
      if (signal.aborted) return null;
      try {
        await this.#deliverOrSkip(item, signal);
        await ctx.state.set(key, this.#o.positionAfter(item));
      } catch (err) {
        if (signal.aborted) return null;
        // The batch stops here; the backoff is not reset, so an item that keeps failing slows the loop.
        const delay = this.#backoff.next();
        ctx.logger.error(
          { err, item: this.#o.itemId(item), retryInMs: delay },
          "an item was not recorded; it is fetched again",
        );
        return delay;
      }
    }
    // Only a batch handled to its end resets the backoff.
    this.#backoff.reset();
    return this.#o.intervalMs ?? 0;
  }

  async #deliverOrSkip(item: Item, signal: AbortSignal): Promise<void> {
    const id = this.#o.itemId(item);
    try {
      await this.#o.deliver(item, signal);
      this.#failing = undefined;
    } catch (err) {
      if (signal.aborted) throw err;
      const same = this.#failing?.id === id ? this.#failing : undefined;
      const attempts = (same?.attempts ?? 0) + 1;
      const since = same?.since ?? this.#now();
      const bound = this.#o.maxItemAttempts ?? 10;
      if (attempts < bound || this.#now() - since < (this.#o.skipItemAfterMs ?? 600_000)) {
        this.#failing = { id, attempts, since };
        throw err;
      }
      this.#failing = undefined;
      this.#o.ctx.logger.error(
        { err, item: id, attempts },
        "an item failed every attempt; it is skipped and will not be answered",
      );
    }
  }

  #fetchFailure(err: unknown): number | null {
    const { ctx } = this.#o;
    const facts: FailureFacts =
      err instanceof PlatformCallError
        ? err.facts
        : { detail: err instanceof Error ? err.message : String(err) };
    const verdict = classifyFailure(facts, this.#o.platformRule);
    if (verdict.kind === "credentials" || facts.status === 401 || facts.status === 403) {
      // Retrying cannot help; the session stops the gateway until someone fixes the variable.
      const call = err instanceof PlatformCallError ? err.call : this.#o.call;
      ctx.credentialsRejected(this.#o.envVar, `${call}: ${facts.status ?? ""} ${facts.detail ?? ""}`.trim());
      return null;
    }
    if (verdict.retryAfterMs !== undefined) {
      ctx.logger.warn(
        { status: facts.status, retryInMs: verdict.retryAfterMs },
        `${this.#o.call} rate limited; waiting the time the platform gave`,
      );
      return verdict.retryAfterMs;
    }
    const delay = this.#fetchBackoff.next();
    const failures = this.#fetchBackoff.attempt;
    const said = this.#o.explain?.(facts, failures);
    const fields = { status: facts.status, detail: facts.detail, retryInMs: delay };
    if (said) ctx.logger[said.level]({ ...fields, failures }, said.message);
    else ctx.logger.warn({ ...fields, err }, `${this.#o.call} failed; retrying`);
    return delay;
  }

  /** Fetches work but nothing came for `deafAfterMs`: warn and restart. */
  #deaf(): boolean {
    const after = this.#o.deafAfterMs;
    if (after === undefined) return false;
    const silentMs = this.#now() - this.#lastItemAt;
    if (silentMs < after) return false;
    this.#o.ctx.logger.warn(
      { silentMs, deafAfterMs: after },
      `nothing arrived for ${Math.round(silentMs / 1000)} s while ${this.#o.call} works (deafAfter); restarting the poll`,
    );
    this.#lastItemAt = this.#now();
    this.#o.restart?.();
    this.#reconnected();
    return true;
  }

  #reconnected(): void {
    this.#reconnects += 1;
    this.#o.ctx.reconnected?.();
  }
}
