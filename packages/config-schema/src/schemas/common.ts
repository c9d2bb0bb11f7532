import * as v from "valibot";

type Entries = v.ObjectEntries;

/**
 * A strict mapping whose three failure kinds read well: not a mapping, a missing required key,
 * an unknown key (typos are caught instead of silently ignored).
 */
export function strict<const E extends Entries>(
  entries: E,
  label: string,
  extraUnknown?: Record<string, string>,
) {
  const known = Object.keys(entries).join(", ");
  return v.strictObject(entries, (issue) => {
    if (issue.expected === "never") {
      const key = String((issue.path?.[issue.path.length - 1] as { key?: unknown } | undefined)?.key);
      return extraUnknown?.[key] ?? `unknown key in ${label} (known keys: ${known})`;
    }
    if (issue.input === undefined && issue.path?.length) return `is required in ${label}`;
    return `must be a mapping (${label})`;
  });
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
};
