import * as v from "valibot";
import { didYouMean } from "../did-you-mean.js";

type Entries = v.ObjectEntries;
type ObjectIssue = v.StrictObjectIssue | v.ObjectIssue;

/** `unknown key in <label> (known keys: ...); did you mean "<nearest>"?` for a strict object's extra key. */
function unknownKey(issue: ObjectIssue, label: string, known: string[]): string {
  const key = String((issue.path?.[issue.path.length - 1] as { key?: unknown } | undefined)?.key);
  return `unknown key in ${label} (known keys: ${known.join(", ")})${didYouMean(key, known)}`;
}

const lastKeyOf = (issue: ObjectIssue) =>
  String((issue.path?.[issue.path.length - 1] as { key?: unknown } | undefined)?.key);

/**
 * A strict mapping whose three failure kinds read well: not a mapping, a missing required key,
 * an unknown key (typos are caught instead of silently ignored, with the nearest known key).
 */
export function strict<const E extends Entries>(
  entries: E,
  label: string,
  extraUnknown?: Record<string, string>,
) {
  const known = Object.keys(entries);
  return v.strictObject(entries, (issue) => {
    if (issue.expected === "never")
      return extraUnknown?.[lastKeyOf(issue)] ?? unknownKey(issue, label, known);
    if (issue.input === undefined && issue.path?.length) return `is required in ${label}`;
    return `must be a mapping (${label})`;
  });
}

/** Like a loose object for every issue (with `message`, else valibot's), except that unknown keys fail. */
export function closed<const E extends Entries>(entries: E, label: string, message?: string) {
  const known = Object.keys(entries);
  return v.strictObject(entries, (issue) =>
    issue.expected === "never" ? unknownKey(issue, label, known) : (message ?? issue.message),
  );
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The NAME of an environment variable; its value is only read by the server at start-up. */
export const envVarName = v.pipe(
  v.string("must be a string: the name of an environment variable"),
  v.regex(
    ENV_NAME,
    "must be the name of an environment variable (letters, digits, _; not the secret itself)",
  ),
);

export const nonEmptyString = (what: string) =>
  v.pipe(v.string(`must be a string (${what})`), v.trim(), v.minLength(1, `must not be empty (${what})`));

export const httpUrl = (what: string) =>
  v.pipe(
    v.string(`must be a string (${what})`),
    v.check((s) => isHttpUrl(s), `must be an http(s) URL (${what})`),
  );

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

export const integerIn = (min: number, max: number, what: string) =>
  v.pipe(
    v.number(`must be an integer (${what})`),
    v.integer(`must be an integer (${what})`),
    v.minValue(min, `must be at least ${min} (${what})`),
    v.maxValue(max, `must be at most ${max} (${what})`),
  );

export const bool = (what: string) => v.boolean(`must be true or false (${what})`);

/** Keys every gateway entry (channel adapter or push-style) may carry: where approvals go, who may decide. */
export const gatewayEntryCommon = {
  approvalDestination: v.optional(
    nonEmptyString(
      "platform thread for approval requests of runs from elsewhere: a chat id, phone number or address",
    ),
  ),
  approvers: v.optional(
    v.array(nonEmptyString("platform user id"), "must be a list of platform user ids allowed to decide"),
  ),
  streaming: v.optional(bool("stream replies into the chat while the agent writes, where the platform can")),
  streamIntervalMs: v.optional(
    integerIn(250, 60_000, "least milliseconds between two updates of a streamed reply"),
  ),
};
