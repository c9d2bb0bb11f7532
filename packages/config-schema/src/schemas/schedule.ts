// One file under schedules/: when the agent speaks first, what it is told, and where the reply goes.
// Cron patterns and timezones are checked with croner (the same library the scheduler runs on), so
// a pattern that loads is one the service can run.
import { Cron } from "croner";
import * as v from "valibot";
import { bool, integerIn, nonEmptyString, strict } from "./common.js";

export const CATCH_UP = ["none", "last"] as const;

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:\d+[smhd])+$/;

/** "90s", "5m", "1h30m", "1d" -> milliseconds; undefined when it is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim().toLowerCase();
  if (!DURATION.test(s)) return undefined;
  let ms = 0;
  for (const [, n, unit] of s.matchAll(/(\d+)([smhd])/g)) ms += Number(n) * UNITS[unit as string]!;
  return ms;
}

/** Shortest `every`: below it a schedule is a busy loop, not a schedule. */
export const MIN_EVERY_MS = 10_000;

export function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The croner error for a 5- or 6-field pattern, or undefined when it parses. */
export function cronProblem(pattern: string): string | undefined {
  try {
    new Cron(pattern, { paused: true, mode: "5-or-6-parts" }).stop();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

const threadId = v.pipe(
  v.union(
    [v.pipe(v.string(), v.trim(), v.minLength(1)), v.pipe(v.number(), v.integer())],
    "must be the platform thread (a chat or channel id, a phone number, an e-mail address)",
  ),
  v.transform((id) => String(id)),
);

export const scheduleSchema = strict(
  {
    cron: v.optional(
      v.pipe(
        nonEmptyString("a cron pattern of 5 or 6 fields"),
        v.rawCheck(({ dataset, addIssue }) => {
          if (!dataset.typed) return;
          const problem = cronProblem(dataset.value);
          if (problem) addIssue({ message: `must be a cron pattern of 5 or 6 fields (${problem})` });
        }),
      ),
    ),
    every: v.optional(
      v.pipe(
        v.string('must be a duration such as "30s", "5m", "1h30m" or "1d"'),
        v.check(
          (s) => parseDuration(s) !== undefined,
          'must be a duration such as "30s", "5m", "1h30m" or "1d"',
        ),
        v.check((s) => (parseDuration(s) ?? 0) >= MIN_EVERY_MS, "must be at least 10s"),
      ),
    ),
    timezone: v.optional(
      v.pipe(
        nonEmptyString("an IANA timezone such as Europe/Berlin"),
        v.check(validTimezone, "must be an IANA timezone such as Europe/Berlin or UTC"),
      ),
    ),
    prompt: nonEmptyString("the message the agent receives at each tick"),
    agent: v.optional(nonEmptyString("an agent file name under agents/")),
    to: strict(
      {
        gateway: v.optional(nonEmptyString("a push gateway entry: its file name or its type")),
        thread: v.optional(threadId),
        page: v.optional(nonEmptyString("a chat page (exposes: webui) entry: its file name")),
        user: v.optional(nonEmptyString("the page account (username) whose conversation gets the reply")),
        conversation: v.optional(
          v.pipe(
            nonEmptyString("the page conversation id the reply goes into"),
            v.regex(
              /^[^\u0000-\u001f\u007f]{1,200}$/,
              "must be at most 200 characters, no control characters",
            ),
          ),
        ),
      },
      "to",
    ),
    enabled: v.optional(bool("whether the schedule runs")),
    catchUp: v.optional(
      v.picklist(CATCH_UP, `must be one of ${CATCH_UP.join(", ")} (ticks missed while the service was down)`),
    ),
  },
  "schedule",
);

/** An agent's `reminders`: `true`, or the bound per person (default 20) and the timezone people's times are read in. */
export const remindersSchema = v.union(
  [
    v.boolean(),
    strict(
      {
        maxPerUser: v.optional(integerIn(1, 10_000, "active reminders per person")),
        timezone: v.optional(
          v.pipe(
            nonEmptyString("an IANA timezone such as Europe/Berlin"),
            v.check(validTimezone, "must be an IANA timezone such as Europe/Berlin or UTC"),
          ),
        ),
      },
      "reminders",
    ),
  ],
  "must be true, false or { maxPerUser, timezone }",
);
