import type { StoreHealthView } from "@agentsvc/chat-store";
import type { Context, MiddlewareHandler } from "hono";
import { fail } from "./errors.js";

/** Routes that never touch the store: they answer even while the file is locked. */
const STORELESS = new Set(["/health", "/tools"]);

/** 503 `store_unavailable` with `Retry-After` (whole seconds, at least 1). */
export function storeUnavailable(c: Context, retryAfterMs: number): Response {
  c.header("Retry-After", String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return fail(
    c,
    503,
    "store_unavailable",
    "the chat store is locked by another process; try again in a moment",
  );
}

/**
 * Asks the store before a request may wait on it: a write needs the write lock free now, a read
 * is probed once a lock error was seen. Never waits, so a lock held elsewhere costs each request
 * microseconds instead of the busy timeout on the event loop.
 */
export function storeGuard(health: StoreHealthView): MiddlewareHandler {
  return async (c, next) => {
    const route = c.req.path.slice(c.req.path.lastIndexOf("/"));
    if (!STORELESS.has(route)) {
      const wait = health.admit(c.req.method === "GET" || c.req.method === "HEAD" ? "read" : "write");
      if (wait !== undefined) return storeUnavailable(c, wait);
    }
    await next();
  };
}
