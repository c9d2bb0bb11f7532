// The platform client against a real HTTP server on 127.0.0.1: what a failure carries for the
// outbox and the poll loop, and what the server sees of a call (the kit's transport against fetch).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PlatformCall, PlatformCallError, PlatformClient } from "../src/index.js";

let server: Server;
let base: string;
/** Every request's path, in order. */
const asked: string[] = [];
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "/ok": (_req, res) => res.end(JSON.stringify({ ok: true, result: [1, 2] })),
  "/limited": (_req, res) => {
    res.writeHead(429, { "retry-after": "3", "content-type": "application/json" });
    res.end(JSON.stringify({ ok: false }));
  },
  // Telegram answers errors in the body: https://core.telegram.org/bots/api#making-requests
  "/refused": (_req, res) => {
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: false, error_code: 401, description: "Unauthorized" }));
  },
  // Slack answers HTTP 200 with ok: false: https://api.slack.com/web#evaluating_responses
  "/slack-style": (_req, res) => res.end(JSON.stringify({ ok: false, error: "invalid_auth" })),
  "/silent": () => {},
  "/empty": (_req, res) => {
    res.writeHead(204);
    res.end();
  },
  "/html-502": (_req, res) => {
    res.writeHead(502, { "content-type": "text/html" });
    res.end("<html>Bad Gateway</html>");
  },
  "/redirect": (_req, res) => res.writeHead(307, { location: "/ok" }).end(),
  // The head and 7 of the 100 bytes announced, then the socket dropped.
  "/drop-mid": (_req, res) => {
    res.writeHead(200, { "content-length": "100", "content-type": "application/json" });
    res.write('{"ok":t', () => res.socket?.destroy());
  },
  "/headers": (req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => res.end(JSON.stringify({ method: req.method, headers: req.headers, body })));
  },
  "/echo": (req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () =>
      res.end(JSON.stringify({ method: req.method, type: req.headers["content-type"], body })),
    );
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? "");
    routes[req.url ?? ""]?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = new PlatformClient({
  platform: "test",
  timeoutMs: 2_000,
  bodyFailure: (body) => {
    const b = body as { ok?: boolean; error_code?: number; description?: string; error?: string };
    if (b.ok !== false) return undefined;
    return {
      ...(b.error_code !== undefined ? { status: b.error_code } : {}),
      ...(b.error !== undefined ? { code: b.error } : {}),
      ...(b.description !== undefined ? { detail: b.description } : {}),
    };
  },
});

async function failure(p: Promise<unknown>): Promise<PlatformCallError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatformCallError);
  return err as PlatformCallError;
}

describe("PlatformClient", () => {
  it("returns the parsed answer and sends a JSON body as application/json with POST", async () => {
    expect(await client.json("ok", `${base}/ok`)).toEqual({ ok: true, result: [1, 2] });
    expect(await client.json("echo", `${base}/echo`, { body: { a: 1 } })).toEqual({
      method: "POST",
      type: "application/json",
      body: '{"a":1}',
    });
  });

  it("a 429 carries its Retry-After, and the outbox's error waits it", async () => {
    const err = await failure(client.json("getUpdates", `${base}/limited`));
    expect(err.facts).toMatchObject({ status: 429, retryAfter: "3" });
    expect(err.toSendError().retryAfterMs).toBe(3_000);
  });

  it("a 401 in the body is a credentials failure naming the variable", async () => {
    const err = await failure(client.json("getMe", `${base}/refused`));
    expect(err.facts).toMatchObject({ status: 401, detail: "Unauthorized" });
    const sendError = err.toSendError({ envVar: "TG_TOKEN" });
    expect(sendError.credentials).toBe(true);
    expect(sendError.message).toContain("TG_TOKEN");
  });

  it("an HTTP 200 whose body reports a failure is a failure with the platform's code", async () => {
    const err = await failure(client.json("auth.test", `${base}/slack-style`));
    expect(err.facts).toMatchObject({ status: 200, code: "invalid_auth" });
  });

  it("an empty answer (204) is undefined; an HTML error page is its status's failure, its text the detail", async () => {
    expect(await client.json("DELETE message", `${base}/empty`)).toBeUndefined();
    const err = await failure(client.json("getUpdates", `${base}/html-502`));
    expect(err.facts).toMatchObject({ status: 502, detail: "<html>Bad Gateway</html>" });
    expect(err.toSendError().permanent).toBe(false);
  });

  it("a call that gets no answer within its timeout is a network failure saying so", async () => {
    const err = await failure(client.json("getUpdates", `${base}/silent`, { timeoutMs: 50 }));
    expect(err.facts).toEqual({ network: true, detail: "no answer within 50 ms" });
    expect(err.toSendError().permanent).toBe(false);
  });

  it("the caller's abort ends the call as an abort, not a platform failure", async () => {
    const controller = new AbortController();
    const call = client.json("getUpdates", `${base}/silent`, { signal: controller.signal });
    controller.abort();
    const err = await call.catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(PlatformCallError);
    expect((err as Error).name).toBe("AbortError");
  });
});

describe("PlatformClient on the kit's transport", () => {
  const throughFetch = new PlatformClient({ platform: "test", timeoutMs: 2_000, fetch: globalThis.fetch });

  it("sends what fetch sent: method, headers and body bytes of a JSON, a string and a bodiless call", async () => {
    type Seen = { method: string; headers: Record<string, string>; body: string };
    const calls: PlatformCall[] = [
      { method: "POST", body: { text: "héllo", n: 1 }, headers: { Authorization: "Bot t" } },
      {
        method: "POST",
        body: "a=1&b=%C3%A9",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      },
      { method: "GET" },
      { method: "DELETE", headers: { "user-agent": "DiscordBot (x, 0.1)" } },
    ];
    for (const call of calls) {
      const viaTransport = await client.json<Seen>("headers", `${base}/headers`, call);
      const viaFetch = await throughFetch.json<Seen>("headers", `${base}/headers`, call);
      expect(viaTransport).toEqual(viaFetch);
    }
  });

  it("answers a redirect with its status, not followed: a failure the outbox retries, its target never asked", async () => {
    asked.length = 0;
    const err = await failure(client.json("sendMessage", `${base}/redirect`, { body: { text: "hi" } }));
    expect(err.facts).toMatchObject({ status: 307 });
    expect(err.toSendError().permanent).toBe(false);
    expect(asked).toEqual(["/redirect"]);
  });

  it("an answer whose connection drops mid-body is a network failure (the outbox retries it)", async () => {
    const err = await failure(client.json("sendMessage", `${base}/drop-mid`, { body: { text: "hi" } }));
    expect(err.facts).toEqual({ network: true, detail: "the answer broke off" });
    expect(err.toSendError().permanent).toBe(false);
  });

  it("the caller's abort while the call waits is thrown as it is", async () => {
    const controller = new AbortController();
    const call = client.json("getUpdates", `${base}/silent`, { signal: controller.signal });
    const reason = new Error("the gateway stopped");
    setImmediate(() => controller.abort(reason));
    await expect(call).rejects.toBe(reason);
  });

  it("makes two calls one after another on one socket", async () => {
    const sockets = new Set<Socket>();
    const own = createServer((_req, res) => res.end('{"ok":true}'));
    own.on("connection", (s: Socket) => sockets.add(s));
    await new Promise<void>((resolve) => own.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(own.address() as AddressInfo).port}/m`;
      await client.json("sendMessage", url, { body: { n: 1 } });
      await client.json("editMessageText", url, { body: { n: 2 } });
      expect(sockets.size).toBe(1);
    } finally {
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
    }
  });
});
