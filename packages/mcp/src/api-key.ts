import { createHash, timingSafeEqual } from "node:crypto";

/**
 * The key a caller presented: `X-API-Key`, else `Authorization: Bearer <key>`.
 * Undefined when neither header carries one.
 */
export function presentedKey(headers: Headers): string | undefined {
  const direct = headers.get("x-api-key");
  if (direct !== null && direct !== "") return direct;
  const auth = headers.get("authorization");
  const match = auth ? /^Bearer[ \t]+(.+)$/i.exec(auth.trim()) : null;
  return match?.[1];
}

/**
 * Constant-time comparison: both sides are hashed to equal-length digests first, so neither the
 * content nor the length of the configured key leaks through timing. An empty configured key
 * matches nothing (a configured but unset variable must not open the door).
 */
export function keyMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined || expected === "") return false;
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}
