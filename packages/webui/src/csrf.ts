import type { MiddlewareHandler } from "hono";
import { fail } from "./errors.js";

/**
 * Refuses a state-changing request a browser sent from another site: an `Origin` header whose host
 * differs from the request's Host (or the opaque origin `null`) is 403 `cross_site`. Requests without
 * `Origin` (curl, server-to-server) pass; browsers always send it on cross-origin POSTs.
 * `allowedOrigins` lists extra origins (e.g. behind a proxy that rewrites Host), as `https://host:port`.
 */
export function crossSiteGuard(allowedOrigins: readonly string[] = []): MiddlewareHandler {
  const allowed = new Set(allowedOrigins.map((o) => o.toLowerCase().replace(/\/+$/, "")));
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const origin = c.req.header("origin");
    if (origin === undefined) return next();
    if (allowed.has(origin.toLowerCase())) return next();
    const host = (c.req.header("host") ?? new URL(c.req.url).host).toLowerCase();
    let originHost: string | undefined;
    try {
      originHost = origin === "null" ? undefined : new URL(origin).host.toLowerCase();
    } catch {
      originHost = undefined;
    }
    if (originHost === undefined || originHost !== host) {
      return fail(
        c,
        403,
        "cross_site",
        `cross-site request refused: Origin "${origin}" does not match host "${host}"`,
      );
    }
    await next();
  };
}
