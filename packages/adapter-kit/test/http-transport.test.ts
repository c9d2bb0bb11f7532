// The platform calls' transport (http-transport.ts) against real servers on 127.0.0.1: one socket
// kept for calls one after another, the server's keep-alive hint, the environment's proxy, a
// redirect answered, compressed answers read as fetch reads them.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { HttpTransport, httpTransport } from "../src/index.js";

interface Got {
  url: string;
  body: string;
}

const servers: Server[] = [];
const transports: HttpTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) t.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((ok) => s.close(() => ok()));
  }
});

/** A server on 127.0.0.1 whose `answer` decides each request (after its body is read). */
async function server(answer: (got: Got, res: ServerResponse) => void) {
  const got: Got[] = [];
  const sockets = new Set<Socket>();
  const s = createServer();
  s.on("connection", (socket: Socket) => sockets.add(socket));
  s.on("request", (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      const one = { url: req.url ?? "", body };
      got.push(one);
      answer(one, res);
    });
  });
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  servers.push(s);
  return { server: s, got, sockets, base: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

const post = (t: HttpTransport, url: string, body = "{}") =>
  t.request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    timeoutMs: 10_000,
  });

describe("HttpTransport", () => {
  it("sends calls one after another on one kept-alive socket", async () => {
    const r = await server((_got, res) => res.end('{"ok":true}'));
    const t = new HttpTransport();
    transports.push(t);
    for (let n = 0; n < 3; n++)
      expect(await (await post(t, `${r.base}/m`, `{"n":${n}}`)).json()).toEqual({ ok: true });
    expect(r.got.map((g) => g.body)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
    expect(r.sockets.size).toBe(1);
  });

  it("closes its kept-alive sockets on close(): the server sees them closed, the next call on a new one", async () => {
    const r = await server((_got, res) => res.end('{"ok":true}'));
    // Neither side closes an idle socket on its own while the test runs.
    r.server.keepAliveTimeout = 60_000;
    const t = new HttpTransport({ idleMs: 60_000 });
    transports.push(t);
    await (await post(t, `${r.base}/m`)).json();
    const [kept] = [...r.sockets];
    const closed = once(kept as Socket, "close");
    t.close();
    await closed;
    await (await post(t, `${r.base}/m`)).json();
    expect(r.sockets.size).toBe(2);
  });

  it("answers a redirect as it came: the 3xx and its Location, its target never asked", async () => {
    const target = await server((_got, res) => res.end("{}"));
    const r = await server((_got, res) => res.writeHead(307, { location: `${target.base}/elsewhere` }).end());
    const answer = await post(httpTransport, `${r.base}/m`);
    expect(answer.status).toBe(307);
    expect(answer.ok).toBe(false);
    expect(answer.headers.get("Location")).toBe(`${target.base}/elsewhere`);
    expect(await answer.text()).toBe("");
    expect(target.got).toHaveLength(0);
  });

  it("reads a gzip, a deflate and a raw-deflate answer as its text, a byte order mark dropped", async () => {
    const text = '\ufeff{"ok":true,"result":"héllo"}';
    const bodies = [gzipSync(text), deflateSync(text), deflateRawSync(text)];
    const codings = ["gzip", "deflate", "deflate"];
    const r = await server((_got, res) => {
      const i = r.got.length - 1;
      res.writeHead(200, { "content-encoding": codings[i] as string }).end(bodies[i]);
    });
    for (let i = 0; i < 3; i++)
      expect(await (await post(httpTransport, `${r.base}/m`)).text()).toBe(text.slice(1));
  });

  it("closes a kept-alive socket before the server's announced keep-alive timeout runs out", async () => {
    const r = await server((_got, res) => res.writeHead(200, { "keep-alive": "timeout=2" }).end());
    // The server itself would keep it a minute: a close now is the transport's.
    r.server.keepAliveTimeout = 60_000;
    await (await post(httpTransport, `${r.base}/m`)).text();
    const [socket] = [...r.sockets];
    await once(socket as Socket, "end");
    expect(r.got).toHaveLength(1);
  });

  it("goes through HTTP_PROXY when Node is told to use the environment's proxy (NODE_USE_ENV_PROXY=1), as fetch does", async () => {
    const target = await server((_got, res) => res.end());
    const proxy = await server((_got, res) => res.end("from the proxy")); // answers for the target
    const t = new HttpTransport({ env: { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.base } });
    transports.push(t);
    expect(await (await post(t, `${target.base}/cb`)).text()).toBe("from the proxy");
    expect(proxy.got.map((g) => g.url)).toEqual([`${target.base}/cb`]);
    expect(target.got).toHaveLength(0);
  });

  it("does not use the environment's proxy unless Node is told to", async () => {
    const target = await server((_got, res) => res.end("direct"));
    const proxy = await server((_got, res) => res.end("from the proxy"));
    const t = new HttpTransport({ env: { HTTP_PROXY: proxy.base }, execArgv: [] });
    transports.push(t);
    expect(await (await post(t, `${target.base}/cb`)).text()).toBe("direct");
    expect(proxy.got).toHaveLength(0);
  });

  it("refuses a scheme other than http and https", async () => {
    await expect(post(httpTransport, "ftp://127.0.0.1/x")).rejects.toThrow("unsupported protocol ftp:");
  });
});
