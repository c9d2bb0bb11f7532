// The JSON-RPC client (api.ts) on adapter-kit's transport against a daemon on 127.0.0.1 answering as
// signal-cli's HTTP JSON-RPC route does (https://github.com/AsamK/signal-cli/blob/master/man/signal-cli-jsonrpc.5.adoc):
// calls one after another share a socket, and a redirect is an answer (retried), not followed.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { GatewaySendError } from "@agentsvc/adapter-kit";
import { afterEach, expect, it } from "vitest";
import { callRpc } from "../src/api.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A daemon whose `answer` gives each call's status and JSON-RPC body; counts paths and sockets. */
async function daemon(
  answer: (id: number) => { status: number; headers?: Record<string, string>; body?: unknown },
) {
  const paths: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      paths.push(req.url ?? "");
      const { id } = JSON.parse(raw || "{}") as { id?: number };
      const a = answer(id ?? 0);
      res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
      res.end(a.body === undefined ? "" : JSON.stringify(a.body));
    });
  });
  server.on("connection", (s: Socket) => sockets.add(s));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return { paths, sockets, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

it("sends JSON-RPC calls one after another on one kept-alive socket", async () => {
  const d = await daemon((id) => ({ status: 200, body: { jsonrpc: "2.0", result: { timestamp: id }, id } }));
  const first = await callRpc(d.base, "send", { message: "a" }, undefined);
  const second = await callRpc(d.base, "sendTyping", { recipient: ["+1555"] }, undefined);
  expect([first, second]).toMatchObject([
    { timestamp: expect.any(Number) },
    { timestamp: expect.any(Number) },
  ]);
  expect(d.paths).toEqual(["/api/v1/rpc", "/api/v1/rpc"]);
  expect(d.sockets.size).toBe(1);
});

it("takes a redirect as the daemon's failed answer (retried), its target never asked", async () => {
  const target = await daemon((id) => ({ status: 200, body: { jsonrpc: "2.0", result: {}, id } }));
  const d = await daemon(() => ({ status: 307, headers: { location: `${target.base}/api/v1/rpc` } }));
  const err = await callRpc(d.base, "send", { message: "a" }, undefined).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GatewaySendError);
  expect(err).toMatchObject({ status: 307, permanent: false });
  expect(target.paths).toEqual([]);
});

/** A daemon on 127.0.0.1 whose every answer `respond` writes by hand. */
async function rawDaemon(respond: (res: import("node:http").ServerResponse) => void) {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => respond(res));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it("takes a 200 whose body is not JSON as the daemon's failed answer, a send failure, not a raw error", async () => {
  const base = await rawDaemon((res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<html>proxy error</html>");
  });
  const err = await callRpc(base, "send", { message: "a" }, undefined).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GatewaySendError);
  expect((err as GatewaySendError).message).toMatch(/unreadable answer/);
});

it("takes a body that breaks off as a network failure, retried, not a raw error", async () => {
  const base = await rawDaemon((res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
    res.write('{"jsonrpc":"2.0","res');
    setImmediate(() => res.socket?.destroy());
  });
  const err = await callRpc(base, "send", { message: "a" }, undefined).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GatewaySendError);
  expect((err as GatewaySendError).permanent).toBe(false);
  expect((err as GatewaySendError).message).toMatch(/broke off/);
});

// signal-cli's JSON-RPC errors (signal-cli-jsonrpc(5): -32700/-32600/-32601/-32602 are JSON-RPC's own
// parse, request, method and params errors; signal-cli's -1 user error, -3 unregistered user...).
it("takes a JSON-RPC error of the call itself as permanent and signal-cli's own as retried", async () => {
  const d = await daemon((id) => ({
    status: 200,
    body: { jsonrpc: "2.0", error: { code: id % 2 ? -32602 : -1, message: "no" }, id },
  }));
  const errors = await Promise.all(
    [0, 1].map(() => callRpc(d.base, "send", { message: "a" }, undefined).catch((e: unknown) => e)),
  );
  const byCode = new Map(errors.map((e) => [(e as { code: number }).code, e as GatewaySendError]));
  expect(byCode.get(-32602)).toMatchObject({ name: "SignalRpcError", permanent: true });
  expect(byCode.get(-1)).toMatchObject({ name: "SignalRpcError", permanent: false });
});

it("fails a 429 by its status and Retry-After, whatever JSON its body carries", async () => {
  const d = await daemon((id) => ({
    status: 429,
    headers: { "retry-after": "7" },
    body: { jsonrpc: "2.0", result: { timestamp: 1 }, id },
  }));
  const err = await callRpc(d.base, "send", { message: "a" }, undefined).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GatewaySendError);
  expect(err).toMatchObject({ status: 429, retryAfterMs: 7000, permanent: false });
});
