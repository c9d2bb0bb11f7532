// Small helpers adapters' doctor checks share: a named variable's value or the failed line naming
// it, and one bounded HTTP call whose body is read as JSON when it is JSON.
import type { DoctorResult } from "./contract.js";

type Env = Record<string, string | undefined>;

/** Every live call of doctor gives up after this long (a dead proxy must not hang the command). */
const TIMEOUT_MS = 10_000;

/** The value of the variable `name`, or a failed result saying to set it. */
export function secretOf(env: Env, name: string, check: string): string | DoctorResult {
  const value = env[name];
  if (value === undefined || value.trim() === "")
    return {
      check,
      status: "failed",
      detail: `${name} is not set`,
      fix: `set ${name} in the service's environment`,
    };
  return value;
}

/** One HTTP call bounded in time; the body parsed as JSON when it is JSON, else kept as text. */
export async function callJson(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body };
}

/** `body[key]` when body is an object. */
export const field = (body: unknown, key: string): unknown =>
  body && typeof body === "object" ? (body as Record<string, unknown>)[key] : undefined;

/** A base URL without its trailing slashes, ready for `${base}/path`. */
export const trimUrl = (url: string) => url.replace(/\/+$/, "");
