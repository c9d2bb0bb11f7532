// A webhook request's headers and body taken straight from Node's request when the app is served by
// @hono/node-server (its `c.env.incoming`), instead of through the fetch Request and web stream made
// around it: those were most of what reading a small webhook cost (a CPU profile of the http
// gateway's accept path, #45). Elsewhere (app.request in tests, another runtime) the fetch ones.
import { readNodeBody, unreadNodeRequest } from "@agentsvc/agent-core";
import { type ReadBodyResult, readBody } from "./read-body.js";

/** Lower-cased names; a repeated header's values joined with ", ", as a fetch Headers reads them. */
function nodeHeaders(raw: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
  }
  return headers;
}

function fetchHeaders(from: Headers): Record<string, string> {
  const headers: Record<string, string> = {};
  from.forEach((value, key) => {
    headers[key.toLowerCase()] = value;
  });
  return headers;
}

/** A received request as a webhook sees it, before its body is read. */
export interface RawRequest {
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Reads the body with a byte limit while it streams (once). */
  body(limit: number): Promise<ReadBodyResult>;
}

/**
 * `request`'s headers and body, from Node's request under `env` when it is there and unread. On
 * either path a Content-Length over the limit is refused before a byte is read (readNodeBody's own
 * check; the fetch path's here, its stream cancelled).
 */
export function rawRequest(env: unknown, request: Request): RawRequest {
  const node = unreadNodeRequest(env);
  if (node) return { headers: nodeHeaders(node.rawHeaders), body: (limit) => readNodeBody(node, limit) };
  return {
    headers: fetchHeaders(request.headers),
    body: (limit) => {
      if (!(Number(request.headers.get("content-length") ?? 0) > limit)) return readBody(request.body, limit);
      request.body?.cancel("body too large").catch(() => {});
      return Promise.resolve({ ok: false, reason: "too_large" });
    },
  };
}
