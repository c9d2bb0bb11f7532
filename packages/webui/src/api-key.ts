import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { fail } from "./errors.js";

/** Header the API key travels in. */
export const API_KEY_HEADER = "X-API-Key";

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/**
 * Constant-time comparison of a presented key with the configured one: both are hashed to equal-length
 * digests first, so neither the content nor the length of the secret leaks through timing.
 */
export function keyMatches(presented: string | undefined, expected: string): boolean {
  const ok = timingSafeEqual(digest(presented ?? ""), digest(expected));
  return ok && presented !== undefined;
}

/** Every request needs `X-API-Key` equal to `expected`, else 401 `api_key_required`. */
export function apiKeyGate(expected: string): MiddlewareHandler {
  return async (c, next) => {
    if (!keyMatches(c.req.header(API_KEY_HEADER), expected)) {
      return fail(c, 401, "api_key_required", `missing or wrong ${API_KEY_HEADER} header`);
    }
    await next();
  };
}
