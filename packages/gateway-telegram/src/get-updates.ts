// One getUpdates (https://core.telegram.org/bots/api#getupdates) that gets past an answer over the
// transport's bound (HttpAnswerTooLargeError, 32 MiB). Retried as it was, the same updates came back
// each time and the bot was stuck. Instead the next ask is for half as many (`limit`, 1-100, default
// 100), down to 1, and back to 100 after an answer that fit. One update alone over the bound (not
// possible within Telegram's own limits, a fake can) is logged as an error naming its update_id and
// skipped: the offset past it is stored, as the poll loop stores a delivered one.
import { type GatewayContext, HttpAnswerTooLargeError, PlatformCallError } from "@agentsvc/adapter-kit";
import type { BotApi } from "./api.js";
import type { TgUpdate } from "./inbound.js";

/** getUpdates' `limit` when left out, and its most. */
const FULL = 100;

/** The update_id at the start of a getUpdates answer (Telegram writes it first in each Update). */
const FIRST_ID = /^\s*\{\s*"ok"\s*:\s*true\s*,\s*"result"\s*:\s*\[\s*\{\s*"update_id"\s*:\s*(\d+)/;

export interface GetUpdatesOptions {
  /** The state key of the offset (the poll loop's cursor). */
  offsetKey: string;
  pollTimeoutSeconds: number;
  /** The request's own timeout: the poll's plus a grace. */
  timeoutMs: number;
  allowedUpdates: readonly string[];
}

/** getUpdates from an offset, asking for fewer updates while the answer is too large to keep. */
export function updatesReader(
  api: BotApi,
  ctx: Pick<GatewayContext, "logger" | "state">,
  o: GetUpdatesOptions,
) {
  let limit = FULL;
  return async (offset: number | undefined, signal: AbortSignal): Promise<TgUpdate[]> => {
    let from = offset;
    for (;;) {
      try {
        const updates = await api.call<TgUpdate[]>(
          "getUpdates",
          {
            // Stryker disable next-line ConditionalExpression: an undefined offset is left out of the JSON body all the same
            ...(from !== undefined ? { offset: from } : {}),
            ...(limit < FULL ? { limit } : {}),
            timeout: o.pollTimeoutSeconds,
            allowed_updates: o.allowedUpdates,
          },
          signal,
          o.timeoutMs,
          // One update alone: its update_id is read from the answer's first bytes, so ask them uncompressed.
          limit === 1 ? { "accept-encoding": "identity" } : undefined,
        );
        if (limit < FULL)
          ctx.logger.info({ limit: FULL }, "getUpdates answers fit again; asking for 100 updates");
        limit = FULL;
        return updates;
      } catch (err) {
        const tooLarge = err instanceof PlatformCallError ? err.cause : undefined;
        if (!(tooLarge instanceof HttpAnswerTooLargeError)) throw err;
        if (limit > 1) {
          limit = Math.ceil(limit / 2);
          ctx.logger.warn(
            { limit, maxBytes: tooLarge.maxBytes },
            `the getUpdates answer is over ${tooLarge.maxBytes} bytes; asking for ${limit} updates at a time`,
          );
          continue;
        }
        const id = FIRST_ID.exec(tooLarge.head.toString("utf8"))?.[1];
        // Not a Bot API answer as documented: failed as before (the poll loop backs off and asks again).
        if (id === undefined) throw err;
        ctx.logger.error(
          { update: Number(id), maxBytes: tooLarge.maxBytes },
          `update ${id} alone is over ${tooLarge.maxBytes} bytes; it is skipped and will not be answered`,
        );
        from = Number(id) + 1;
        await ctx.state.set(o.offsetKey, from);
        limit = FULL;
      }
    }
  };
}
