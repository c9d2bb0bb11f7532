// Mounts the inbound routes of webhook gateways at `/webhooks/<type>`, handing each handler the
// exact raw body bytes, the headers and the public URL before anything is parsed.
import type { Gateway, WebhookRequest } from "@agentsvc/session-core";
import { rawRequest } from "@agentsvc/webhook-kit";
import type { Context, Hono } from "hono";

/** Largest webhook body accepted; platform deliveries are far smaller. */
export const WEBHOOK_MAX_BYTES = 1024 * 1024;

export function mountWebhooks(
  app: Hono,
  gateways: readonly Gateway[],
  publicBaseUrl: string | undefined,
): string[] {
  const mounted: string[] = [];
  for (const gateway of gateways) {
    if (!gateway.webhooks?.length) continue;
    const path = `/webhooks/${gateway.type}`;
    for (const route of gateway.webhooks) {
      app.on(route.method, path, async (c) => {
        const request = await toWebhookRequest(c, route.method, publicBaseUrl);
        // The connection closes once the reader has drained the rest of the body (within its bound).
        if (request === "too_large") return c.text("payload too large", 413, { connection: "close" });
        const response = await route.handle(request);
        return new Response(response.body ?? null, {
          status: response.status,
          headers: response.headers ?? {},
        });
      });
    }
    mounted.push(path);
  }
  return mounted;
}

async function toWebhookRequest(
  c: Context,
  method: "GET" | "POST",
  publicBaseUrl: string | undefined,
): Promise<WebhookRequest | "too_large"> {
  // Under @hono/node-server straight from Node's request (no fetch Request and web stream made).
  const raw = rawRequest(c.env, c.req.raw);
  const headers = raw.headers;
  // Counted while it streams: a chunked body (no Content-Length) stops at the limit, unbuffered; a
  // Content-Length over it is refused before a byte is read. Both are drained so the 413 is read.
  // A GET's body is not read, but one declared over the limit is refused all the same.
  const read = method === "POST" || Number(headers["content-length"] ?? "0") > WEBHOOK_MAX_BYTES;
  const body = read ? await raw.body(WEBHOOK_MAX_BYTES) : { ok: true as const, bytes: new Uint8Array() };
  if (!body.ok) return "too_large";
  const rawBody = body.bytes;
  const url = new URL(c.req.url);
  // Behind a proxy the platform signed the URL it called, not the one this server sees.
  const publicUrl = publicBaseUrl
    ? `${publicBaseUrl.replace(/\/+$/, "")}${url.pathname}${url.search}`
    : url.href;
  return { method, rawBody, headers, url: url.href, publicUrl, query: url.searchParams };
}
