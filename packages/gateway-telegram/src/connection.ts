// The getUpdates long-poll, one scheduled task (https://core.telegram.org/bots/api#getupdates). It
// asks getMe who the bot is first (mentions and its own messages depend on it). An update's offset
// is stored (and so confirmed to Telegram by the next getUpdates) only after the session recorded
// it; a failure stops the batch so the same update comes back on the next poll, after a backoff that
// grows while the same update keeps failing. After `maxUpdateAttempts` tries, and no sooner than
// `skipUpdateAfterMs` after its first failure (a store that is down for a few minutes must not cost
// messages), the update is skipped (confirmed unanswered) with an error log: a poisoned update must
// not hold every later one back.
import { Backoff, type BackoffOptions, type GatewayContext } from "@agentsvc/adapter-kit";
import { type BotApi, TelegramApiError } from "./api.js";
import type { BotIdentity, TgUpdate, TgUser } from "./inbound.js";

export const OFFSET_KEY = "offset";

/** What the poll asks for; every other kind is withheld by Telegram. */
export const ALLOWED_UPDATES = ["message", "callback_query"] as const;

export interface PollerOptions {
  pollTimeoutSeconds: number;
  /** Extra wait past the poll timeout before a silent request counts as dead. */
  graceMs: number;
  backoff: BackoffOptions;
  /** Tries of one update before it is skipped. */
  maxUpdateAttempts: number;
  /** ...and the time since its first failure. */
  skipUpdateAfterMs: number;
}

type Handler = (update: TgUpdate, bot: BotIdentity, signal: AbortSignal) => Promise<void>;

export class Poller {
  readonly #backoff: Backoff;
  #conflicts = 0;
  #pollFailed = false;
  #bot: BotIdentity | undefined;
  /** The update that failed last, and how often in a row. */
  #failing: { updateId: number; attempts: number; since: number } | undefined;

  readonly #api: BotApi;
  readonly #ctx: GatewayContext;
  readonly #options: PollerOptions;
  readonly #handle: Handler;
  readonly #refused: (detail: string) => void;

  constructor(
    api: BotApi,
    ctx: GatewayContext,
    options: PollerOptions,
    /** Handles one update; throws when it was not recorded (the offset then stays). */
    handle: Handler,
    /** Telegram refused the token (401/404): polling has stopped; the session is told. */
    refused: (detail: string) => void,
  ) {
    this.#api = api;
    this.#ctx = ctx;
    this.#options = options;
    this.#handle = handle;
    this.#refused = refused;
    this.#backoff = new Backoff(options.backoff);
  }

  /** One poll: returns the delay before the next one (null once stopped). */
  async poll(signal: AbortSignal): Promise<number | null> {
    if (signal.aborted) return null;
    let polled = false;
    try {
      const bot = this.#bot ?? (await this.#whoAmI(signal));
      const offset = await this.#ctx.state.get<number>(OFFSET_KEY);
      const updates = await this.#api.call<TgUpdate[]>(
        "getUpdates",
        {
          ...(offset !== undefined ? { offset } : {}),
          timeout: this.#options.pollTimeoutSeconds,
          allowed_updates: ALLOWED_UPDATES,
        },
        signal,
        this.#options.pollTimeoutSeconds * 1000 + this.#options.graceMs,
      );
      polled = true;
      this.#ctx.platformCallSucceeded?.();
      if (updates.length > 0) this.#ctx.heard?.();
      this.#conflicts = 0;
      // Polling works again after getUpdates (or getMe) failed: the connection was re-established.
      if (this.#pollFailed) this.#ctx.reconnected?.();
      this.#pollFailed = false;
      for (const update of updates) {
        if (signal.aborted) return null;
        await this.#handleOrSkip(update, bot, signal);
        await this.#ctx.state.set(OFFSET_KEY, update.update_id + 1);
      }
      // Only a batch handled to its end resets the backoff: a poll that works while an update keeps
      // failing must not turn the retries into a hot loop.
      this.#backoff.reset();
      return 0;
    } catch (err) {
      if (signal.aborted) return null;
      // A failed handler is not a lost connection: only a failed poll makes the next success a reconnect.
      if (!polled) this.#pollFailed = true;
      return this.#failed(err);
    }
  }

  /** Handles the update; throws to retry it, until its tries run out: then it is skipped, logged. */
  async #handleOrSkip(update: TgUpdate, bot: BotIdentity, signal: AbortSignal): Promise<void> {
    try {
      await this.#handle(update, bot, signal);
      this.#failing = undefined;
    } catch (err) {
      if (signal.aborted) throw err;
      const same = this.#failing?.updateId === update.update_id ? this.#failing : undefined;
      const attempts = (same?.attempts ?? 0) + 1;
      const since = same?.since ?? Date.now();
      if (
        attempts < this.#options.maxUpdateAttempts ||
        Date.now() - since < this.#options.skipUpdateAfterMs
      ) {
        this.#failing = { updateId: update.update_id, attempts, since };
        throw err;
      }
      this.#failing = undefined;
      this.#ctx.logger.error(
        { err, updateId: update.update_id, attempts },
        "an update failed every attempt; it is skipped and will not be answered",
      );
    }
  }

  async #whoAmI(signal: AbortSignal): Promise<BotIdentity> {
    const me = await this.#api.call<TgUser>("getMe", {}, signal);
    this.#bot = { id: me.id, username: me.username ?? "" };
    return this.#bot;
  }

  #failed(err: unknown): number | null {
    const log = this.#ctx.logger;
    const delay = this.#backoff.next();
    if (!(err instanceof TelegramApiError)) {
      log.error({ err, retryInMs: delay }, "an update was not recorded; it is fetched again");
      return delay;
    }
    if (err.status === 429) {
      const wait = (err.retryAfter ?? 1) * 1000;
      log.warn({ retryInMs: wait }, "getUpdates rate limited (429); waiting retry_after");
      return wait;
    }
    if (err.status === 401 || err.status === 404) {
      // 401: the token is revoked or wrong; 404: it is malformed (the method path does not exist).
      // Retrying cannot help; the gateway stops until someone fixes the variable.
      this.#refused(`${err.method}: ${err.status} ${err.description}`);
      return null;
    }
    if (err.status === 409) {
      // Not a credentials problem: the token works, but someone else polls it or a webhook is set.
      this.#conflicts += 1;
      const webhook = /webhook/i.test(err.description);
      const hint = webhook
        ? "a webhook is set for this bot token: call deleteWebhook (or remove the webhook) so long-polling can work"
        : "another process is polling getUpdates with this bot token: stop the other instance (one instance per bot token)";
      // The first conflict of a streak is an error a person must act on; repeats are quieter.
      log[this.#conflicts === 1 ? "error" : "warn"](
        { status: 409, description: err.description, retryInMs: delay, conflicts: this.#conflicts },
        `getUpdates conflict (409): ${hint}`,
      );
      return delay;
    }
    log.warn(
      { status: err.status, description: err.description, retryInMs: delay },
      `${err.method} failed; retrying`,
    );
    return delay;
  }
}
