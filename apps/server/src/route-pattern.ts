// The route pattern that answered a request: a bounded label for metrics and the span name of traces.
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

/** The pattern of the route that answered (`/agent/invoke`, `/gateways/:name/events`), `unmatched` for a 404 no route took. */
export function routeOf(c: Context): string {
  const route = matchedRoutes(c)[c.req.routeIndex];
  const path = route?.path ?? "";
  if (c.res.status === 404 && (path === "*" || path === "/*" || path === "")) return "unmatched";
  return path || "unmatched";
}
