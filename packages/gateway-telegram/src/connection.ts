// The getUpdates long-poll (https://core.telegram.org/bots/api#getupdates) on the kit's PollLoop: the
// offset is stored (and so confirmed to Telegram by the next getUpdates) only after the session
// recorded the update; a poisoned update is retried with a growing backoff and skipped after the
// bound. What is Telegram's own: getMe first (mentions and the bot's own messages depend on it), the
// 409 conflict explained, 404 (a malformed token) stopping like 401, and an answer over the
// transport's bound asked again for fewer updates (get-updates.ts).
import { type BackoffOptions, type FailureFacts, type GatewayContext, PollLoop } from "@agentsvc/adapter-kit";
import { type BotApi, telegramRule } from "./api.js";
import { updatesReader } from "./get-updates.js";
import type { BotIdentity, TgUpdate, TgUser } from "./inbound.js";

export const OFFSET_KEY = "offset";

/** What the poll asks for; every other kind is withheld by Telegram. */
export const ALLOWED_UPDATES = ["message", "callback_query"] as const;

export interface PollerOptions {
  envVar: string;
  pollTimeoutSeconds: number;
  /** Extra wait past the poll timeout before a silent request counts as dead. */
  graceMs: number;
  backoff: BackoffOptions;
  /** Tries of one update before it is skipped. */
  maxUpdateAttempts: number;
  /** ...and the time since its first failure. */
  skipUpdateAfterMs: number;
  /** The entry's `deafAfter` in ms: restart the poll when nothing came for that long. */
  deafAfterMs?: number;
}

type Handler = (update: TgUpdate, bot: BotIdentity, signal: AbortSignal) => Promise<void>;

/** A 409 says who else takes the updates; the first of a streak is an error a person must act on. */
function explainConflict(facts: FailureFacts, failures: number) {
  if (facts.status !== 409) return undefined;
  // Stryker disable next-line StringLiteral: any text without "webhook" reads the same as none
  const hint = /webhook/i.test(facts.detail ?? "")
    ? "a webhook is set for this bot token: call deleteWebhook (or remove the webhook) so long-polling can work"
    : "another process is polling getUpdates with this bot token: stop the other instance (one instance per bot token)";
  return {
    level: failures === 1 ? ("error" as const) : ("warn" as const),
    message: `getUpdates conflict (409): ${hint}`,
  };
}

/** The poll task: `ctx.scheduler.schedule("poll", 0, (signal) => poller(signal))`. */
export function telegramPoller(api: BotApi, ctx: GatewayContext, o: PollerOptions, handle: Handler) {
  let bot: BotIdentity | undefined;
  const getUpdates = updatesReader(api, ctx, {
    offsetKey: OFFSET_KEY,
    pollTimeoutSeconds: o.pollTimeoutSeconds,
    timeoutMs: o.pollTimeoutSeconds * 1000 + o.graceMs,
    allowedUpdates: ALLOWED_UPDATES,
  });
  const loop = new PollLoop<TgUpdate, number>({
    ctx,
    envVar: o.envVar,
    call: "getUpdates",
    cursorKey: OFFSET_KEY,
    fetch: async (offset, signal) => {
      if (!bot) {
        const me = await api.call<TgUser>("getMe", {}, signal);
        // Stryker disable next-line StringLiteral: a fallback no mention can equal (usernames are 5-32 letters, digits or _), as "" is
        bot = { id: me.id, username: me.username ?? "" };
      }
      return getUpdates(offset, signal);
    },
    positionAfter: (update) => update.update_id + 1,
    deliver: (update, signal) => handle(update, bot as BotIdentity, signal),
    itemId: (update) => update.update_id,
    backoff: o.backoff,
    maxItemAttempts: o.maxUpdateAttempts,
    skipItemAfterMs: o.skipUpdateAfterMs,
    platformRule: telegramRule,
    explain: explainConflict,
    // Stryker disable next-line ConditionalExpression: PollLoop reads an undefined deafAfterMs as absent
    ...(o.deafAfterMs !== undefined ? { deafAfterMs: o.deafAfterMs } : {}),
    // Asking getMe again checks the token and the bot behind it before the next getUpdates.
    restart: () => {
      bot = undefined;
    },
  });
  return (signal: AbortSignal) => loop.poll(signal);
}
