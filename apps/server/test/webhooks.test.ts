// The webhook mount hands adapters the exact bytes the platform sent, before anything is parsed.
import type { AddressInfo } from "node:net";
import { rawPost } from "@agentsvc/raw-http";
import { serve } from "@hono/node-server";
import type { Gateway, WebhookRequest } from "@agentsvc/session-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { mountWebhooks, WEBHOOK_MAX_BYTES } from "../src/webhooks.js";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

function smsGateway(seen: WebhookRequest[]): Gateway {
  return {
    type: "sms",
    webhooks: [
      {
        method: "POST",
        handle: async (r: WebhookRequest) => {
          seen.push(r);
          return { status: 200, body: "<Response></Response>", headers: { "content-type": "text/xml" } };
        },
      },
      {
        method: "GET",
        handle: async (r: WebhookRequest) => {
          seen.push(r);
          return { status: 200, body: r.query.get("hub.challenge") ?? "" };
        },
      },
    ],
  } as unknown as Gateway;
}

async function serveWith(publicBaseUrl?: string) {
  const seen: WebhookRequest[] = [];
  const app = new Hono();
  const telegram = { type: "telegram" } as unknown as Gateway;
  const mounted = mountWebhooks(app, [smsGateway(seen), telegram], publicBaseUrl);
  const base = await new Promise<string>((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
      close = () => new Promise((r) => server.close(() => r()));
      resolve(`http://127.0.0.1:${info.port}`);
    });
  });
  return { seen, base, mounted };
}

describe("webhook routes", () => {
  it("mounts only gateways that declare webhooks, at /webhooks/<type>", async () => {
    const { mounted, base } = await serveWith();
    expect(mounted).toEqual(["/webhooks/sms"]);
    expect((await fetch(`${base}/webhooks/telegram`, { method: "POST" })).status).toBe(404);
  });

  it("passes the raw body bytes unchanged (odd spacing, invalid UTF-8), lower-case headers and the query", async () => {
    const { seen, base } = await serveWith();
    const bytes = new Uint8Array([...new TextEncoder().encode('{ "a" :  1 ,\n"b":"\u00e9"}'), 0xff, 0xfe]);
    const res = await fetch(`${base}/webhooks/sms?x=1`, {
      method: "POST",
      headers: { "X-Twilio-Signature": "abc" },
      body: bytes,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/xml");
    expect(await res.text()).toBe("<Response></Response>");
    expect(Buffer.from(seen[0]?.rawBody ?? []).equals(Buffer.from(bytes))).toBe(true);
    expect(seen[0]?.headers["x-twilio-signature"]).toBe("abc");
    expect(seen[0]?.query.get("x")).toBe("1");
    expect(seen[0]?.publicUrl).toBe(seen[0]?.url);
  });

  it("gives the public URL behind a proxy: the configured base, the path and the query", async () => {
    const { seen, base } = await serveWith("https://bot.example.org/");
    await fetch(`${base}/webhooks/sms?hub.challenge=42`);
    expect(seen[0]?.publicUrl).toBe("https://bot.example.org/webhooks/sms?hub.challenge=42");
    expect(seen[0]?.rawBody.byteLength).toBe(0);
  });

  it("refuses a body over the limit with 413 without calling the adapter", async () => {
    const { seen, base } = await serveWith();
    const res = await fetch(`${base}/webhooks/sms`, {
      method: "POST",
      body: new Uint8Array(WEBHOOK_MAX_BYTES + 1),
    });
    expect(res.status).toBe(413);
    expect(seen).toEqual([]);
  });

  it("refuses a chunked body (no Content-Length) once it passes the limit, closing the connection, without calling the adapter", async () => {
    const { seen, base } = await serveWith();
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        // 64 KiB a chunk, up to 4 MiB: the server must stop well before the end.
        if (pulled > 64) controller.close();
        else controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const res = await fetch(`${base}/webhooks/sms`, {
      method: "POST",
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(seen).toEqual([]);
  });

  it("lets a client that declares 7 MiB and reads only after sending them read the 413: the declared body is drained, not reset", async () => {
    const { seen, base } = await serveWith();
    const answer = await rawPost(Number(new URL(base).port), {
      path: "/webhooks/sms",
      bytes: 7 * 1024 * 1024,
    });
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.head).toMatch(/^connection: close$/im);
    expect(seen).toEqual([]);
  });

  it("refuses a POST or a GET declaring a body over the limit with 413 on the fetch path (app.request), without calling the adapter", async () => {
    const seen: WebhookRequest[] = [];
    const app = new Hono();
    mountWebhooks(app, [smsGateway(seen)], undefined);
    const over = { "content-length": String(WEBHOOK_MAX_BYTES + 1) };
    const post = await app.request("/webhooks/sms", { method: "POST", headers: over, body: "{}" });
    expect(post.status).toBe(413);
    expect((await app.request("/webhooks/sms", { headers: over })).status).toBe(413);
    expect(seen).toEqual([]);
  });
});
