// A kept-alive socket its server closes as a call goes out on it. Node's server closes an idle socket
// after keepAliveTimeout; a server that does not announce it (no `Keep-Alive: timeout`, as nginx
// without keepalive_timeout's second parameter, https://nginx.org/en/docs/http/ngx_http_core_module.html#keepalive_timeout)
// can close one our pool still holds, and under load our own idle close runs late. The race is made to
// land here, not mocked: the next call is sent from the server socket's own timeout event, right after
// Node's keep-alive close destroyed it and before the client read the FIN. Node answers that call
// "socket hang up" (ECONNRESET) after 1 ms: a read is sent again, a send is not.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HttpTransport, PlatformCallError, PlatformClient } from "../src/index.js";

const servers: Server[] = [];
const transports: HttpTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) t.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server closing idle sockets after `keepAliveMs` without saying so; counts requests and connections. */
async function unannouncedKeepAlive(keepAliveMs: number, answerAfterMs = 0) {
  const seen = { requests: 0, connections: 0 };
  const s = createServer((req, res) => {
    seen.requests += 1;
    req.resume();
    req.on("end", () =>
      setTimeout(() => {
        // An explicit Connection header: Node then sends no `Keep-Alive: timeout=` hint.
        res.writeHead(200, { "content-type": "application/json", connection: "keep-alive" });
        res.end('{"ok":true,"result":[]}');
      }, answerAfterMs),
    );
  });
  s.keepAliveTimeout = keepAliveMs;
  s.on("connection", () => {
    seen.connections += 1;
  });
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  servers.push(s);
  const idleClosed = () =>
    new Promise<Socket>((resolve) =>
      // Node's listener (added first) destroys the socket on its keep-alive timeout; this one runs next.
      s.once("connection", (socket: Socket) => socket.once("timeout", () => resolve(socket))),
    );
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/bot1:x/getUpdates`, seen, idleClosed };
}

const post = {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: "{}",
  timeoutMs: 5_000,
};

describe("a call on a kept-alive socket the server closes as it goes out", () => {
  it("a repeatable call is sent again on a new connection and answered", async () => {
    const transport = new HttpTransport();
    transports.push(transport);
    const server = await unannouncedKeepAlive(200);
    const closing = server.idleClosed();
    await (await transport.request(server.url, { ...post, repeatable: true })).text();
    await closing;
    const answer = await transport.request(server.url, { ...post, repeatable: true });
    expect(await answer.json()).toEqual({ ok: true, result: [] });
    // The call that met the dead socket never reached the server; the one sent again did.
    expect(server.seen).toEqual({ requests: 2, connections: 2 });
  });

  it("a call not marked repeatable (a send) fails as Node reports it and is not sent again", async () => {
    const transport = new HttpTransport();
    transports.push(transport);
    const server = await unannouncedKeepAlive(200);
    const closing = server.idleClosed();
    await (await transport.request(server.url, post)).text();
    await closing;
    await expect(transport.request(server.url, post)).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(server.seen).toEqual({ requests: 1, connections: 1 });
  });

  it("PlatformClient sends a repeatable read again; a send fails as a network failure", async () => {
    const server = await unannouncedKeepAlive(200);
    const client = new PlatformClient({ platform: "telegram", timeoutMs: 5_000 });
    // PlatformClient calls through the shared transport: its pool is the one the race must hit.
    const first = server.idleClosed();
    await client.json("getMe", server.url, { body: {}, repeatable: true });
    await first;
    const second = server.idleClosed();
    expect(await client.json("getUpdates", server.url, { body: {}, repeatable: true })).toEqual({
      ok: true,
      result: [],
    });
    await second;
    const failed = await client.json("sendMessage", server.url, { body: {} }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(PlatformCallError);
    expect((failed as PlatformCallError).facts).toEqual({ network: true, detail: "connection failed" });
    // getMe and getUpdates sent again; the send never reached the server and is the outbox's to retry.
    expect(server.seen).toEqual({ requests: 2, connections: 2 });
  });
});

describe("a repeatable call that fails otherwise", () => {
  /** A server on 127.0.0.1 whose `answer` handles each request once read; counts requests and connections. */
  async function counting(answer: (req: IncomingMessage) => void) {
    const seen = { requests: 0, connections: 0 };
    const s = createServer((req) => {
      seen.requests += 1;
      req.resume();
      req.on("end", () => answer(req));
    });
    s.on("connection", () => {
      seen.connections += 1;
    });
    s.listen(0, "127.0.0.1");
    await once(s, "listening");
    servers.push(s);
    return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/getMe`, seen };
  }

  it("fails with Node's error when nobody listens: a refused connection is not sent again", async () => {
    const transport = new HttpTransport();
    transports.push(transport);
    const { url } = await counting(() => {});
    const s = servers.pop() as Server;
    await new Promise((r) => s.close(r));
    await expect(transport.request(url, { ...post, repeatable: true })).rejects.toMatchObject({
      code: "ECONNREFUSED",
    });
  });

  it("fails as Node reports it when a new connection is reset: only a reused socket is tried again", async () => {
    const transport = new HttpTransport();
    transports.push(transport);
    const server = await counting((req) => req.socket.destroy());
    await expect(transport.request(server.url, { ...post, repeatable: true })).rejects.toMatchObject({
      code: "ECONNRESET",
    });
    expect(server.seen).toEqual({ requests: 1, connections: 1 });
  });
});

describe("a long poll on the kept-alive pool", () => {
  it("is answered after the pool's idle close of a socket, and its socket is kept for the next call", async () => {
    const transport = new HttpTransport({ idleMs: 100 });
    transports.push(transport);
    // The server holds each answer 3x the pool's idle time (Telegram's getUpdates holds 25 s, ours is 4 s).
    const server = await unannouncedKeepAlive(0, 300);
    for (let i = 0; i < 2; i++) {
      const answer = await transport.request(server.url, { ...post, repeatable: true });
      expect(await answer.json()).toEqual({ ok: true, result: [] });
    }
    expect(server.seen).toEqual({ requests: 2, connections: 1 });
  });
});
