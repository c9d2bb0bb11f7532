// The getUpdates long-poll, one scheduled task. An update's offset is stored (and so confirmed to
// Telegram by the next getUpdates) only after the session recorded it; a failure stops the batch
// so the same update comes back on the next poll.
import { Backoff, type BackoffOptions, type GatewayContext } from "@agentsvc/session-core";
import { type BotApi, TelegramApiError } from "./bot-api.js";
import type { TgUpdate } from "./updates.js";

export const OFFSET_KEY = "offset";

export interface PollerOptions {
  pollTimeoutSeconds: number;
  /** Extra wait past the poll timeout before a silent request counts as dead. */
  graceMs: number;
  backoff: BackoffOptions;
}

export class Poller {
  readonly #backoff: Backoff;
  #conflicts = 0;

  constructor(
    private readonly api: BotApi,
    private readonly ctx: GatewayContext,
    private readonly options: PollerOptions,
    /** Handles one update; throws when it was not recorded (the offset then stays). */
    private readonly handle: (update: TgUpdate, signal: AbortSignal) => Promise<void>,
  ) {
    this.#backoff = new Backoff(options.backoff);
  }

  /** One poll: returns the delay before the next one (null once stopped). */
  async poll(signal: AbortSignal): Promise<number | null> {
    if (signal.aborted) return null;
    const log = this.ctx.logger;
    try {
      const offset = await this.ctx.state.get<number>(OFFSET_KEY);
      const updates = await this.api.call<TgUpdate[]>(
        "getUpdates",
        {
          ...(offset !== undefined ? { offset } : {}),
          timeout: this.options.pollTimeoutSeconds,
          allowed_updates: ["message", "callback_query"],
        },
        signal,
        this.options.pollTimeoutSeconds * 1000 + this.options.graceMs,
      );
      this.#backoff.reset();
      this.#conflicts = 0;
      for (const update of updates) {
        if (signal.aborted) return null;
        await this.handle(update, signal);
        await this.ctx.state.set(OFFSET_KEY, update.update_id + 1);
      }
      return 0;
    } catch (err) {
      if (signal.aborted) return null;
      return this.#failed(err, log);
    }
  }

  #failed(err: unknown, log: GatewayContext["logger"]): number {
    const delay = this.#backoff.next();
    if (!(err instanceof TelegramApiError)) {
      log.error({ err, retryInMs: delay }, "telegram: an update was not recorded; it is fetched again");
      return delay;
    }
    if (err.status === 429) {
      const wait = (err.retryAfter ?? 1) * 1000;
      log.warn({ retryInMs: wait }, "telegram: getUpdates rate limited (429); waiting retry_after");
      return wait;
    }
    if (err.status === 409) {
      this.#conflicts += 1;
      const webhook = /webhook/i.test(err.description);
      const hint = webhook
        ? "a webhook is set for this bot token: call deleteWebhook (or remove the webhook) so long-polling can work"
        : "another process is polling getUpdates with this bot token: stop the other instance (one instance per bot token)";
      // The first conflict of a streak is an error a person must act on; repeats are quieter.
      log[this.#conflicts === 1 ? "error" : "warn"](
        { status: 409, description: err.description, retryInMs: delay, conflicts: this.#conflicts },
        `telegram: getUpdates conflict (409): ${hint}`,
      );
      return delay;
    }
    if (err.status === 401 || err.status === 404) {
      log.error(
        { status: err.status, retryInMs: delay },
        "telegram: the bot token was refused; check the variable named by botTokenEnvVar",
      );
      return delay;
    }
    log.warn(
      { status: err.status, description: err.description, retryInMs: delay },
      "telegram: getUpdates failed; retrying",
    );
    return delay;
  }
}
