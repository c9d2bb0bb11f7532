import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { errorBody } from "./errors.js";

function digest(value: string): Buffer {
  // Stryker disable next-line StringLiteral: update(value, "") hashes the string as UTF-8 too (the default)
  return createHash("sha256").update(value, "utf8").digest();
}

/** Constant-time comparison: equal-length SHA-256 digests, so neither content nor length leaks. */
export function apiKeyMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(digest(expected), digest(given));
}

/**
 * 401 `api_key_required` unless `X-API-Key` equals `apiKey`. An empty `apiKey` (an `apiKeyEnvVar`
 * whose variable is unset or empty) throws: the route fails closed instead of taking any caller.
 */
export function apiKeyGate(apiKey: string): MiddlewareHandler {
  if (apiKey === "")
    throw new Error("apiKey: the API key is empty (is the entry's apiKeyEnvVar variable set?)");
  return async (c, next) => {
    if (!apiKeyMatches(apiKey, c.req.header("x-api-key"))) {
      return c.json(errorBody("api_key_required", "X-API-Key: missing or wrong API key"), 401);
    }
    await next();
  };
}
