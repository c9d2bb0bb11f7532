// Request headers read from Node's own parse under @hono/node-server. `c.req.header()` there builds
// a fetch `Headers` from the request's raw headers on its first call (~1.2% of an `/agent/invoke`
// instance's CPU, for the Host guard and the body's two headers); Node's `incoming.headers` is
// already parsed. A name sent more than once is read through `c.req.header()`, as before: Node keeps
// the first value of such a header, where `Headers` joins them all.
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";

/** The value of header `name` (lower case), or undefined when the request has none. */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const raw = incoming?.rawHeaders;
  if (!Array.isArray(raw) || typeof incoming?.headers !== "object") return c.req.header(name);
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length === name.length && key.toLowerCase() === name && ++seen > 1) return c.req.header(name);
  }
  const value = incoming.headers[name];
  return typeof value === "string" ? value : undefined;
}
