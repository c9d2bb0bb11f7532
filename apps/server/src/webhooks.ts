// Mounts the inbound routes of webhook gateways at `/webhooks/<type>`, handing each handler the
// exact raw body bytes, the headers and the public URL before anything is parsed.
import type { Gateway, WebhookRequest } from "@agentsvc/session-core";
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
        if (request === "too_large") return c.text("payload too large", 413);
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
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > WEBHOOK_MAX_BYTES) return "too_large";
  const rawBody = method === "GET" ? new Uint8Array() : new Uint8Array(await c.req.arrayBuffer());
  if (rawBody.byteLength > WEBHOOK_MAX_BYTES) return "too_large";
  const url = new URL(c.req.url);
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, key) => {
    headers[key.toLowerCase()] = value;
  });
  // Behind a proxy the platform signed the URL it called, not the one this server sees.
  const publicUrl = publicBaseUrl
    ? `${publicBaseUrl.replace(/\/+$/, "")}${url.pathname}${url.search}`
    : url.href;
  return { method, rawBody, headers, url: url.href, publicUrl, query: url.searchParams };
}
