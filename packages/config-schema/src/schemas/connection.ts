// Keys of a push entry about its connection to the platform (issue #43 item 11).
import * as v from "valibot";
import { parseDuration } from "./schedule.js";

/** Shortest `deafAfter`: below it a quiet minute would reconnect a healthy connection all the time. */
const MIN_DEAF_AFTER_MS = 30_000;

const DURATION =
  'must be a duration such as "10m", "1h" or "1h30m" (deafAfter: reconnect after this long without an event)';

export const connectionKeys = {
  deafAfter: v.optional(
    v.pipe(
      v.string(DURATION),
      v.check((s) => parseDuration(s) !== undefined, DURATION),
      v.check((s) => (parseDuration(s) ?? 0) >= MIN_DEAF_AFTER_MS, "must be at least 30s (deafAfter)"),
    ),
  ),
};
