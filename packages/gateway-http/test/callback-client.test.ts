// The callback's client (api.ts) against real receivers on 127.0.0.1: what each answer becomes for
// the outbox (session-core's classifier), the timeout, a dropped socket, redirects, keep-alive. The
// environment's proxy is the transport's (adapter-kit test/http-transport.test.ts).
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewaySendError } from "@agentsvc/adapter-kit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { postCallback } from "../src/api.js";
import { signPayload } from "../src/signature.js";

const SECRET = "client-secret";
const servers: Server[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((ok) => s.close(() => ok()));
  }
});

interface Got {
  headers: IncomingMessage["headers"];
  body: string;
  url: string;
  method: string;
}

/** A receiver on 127.0.0.1 whose `answer` decides each request (after its body is read). */
async function receiver(answer: (got: Got, res: ServerResponse) => void, server: Server = createServer()) {
  const got: Got[] = [];
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => sockets.add(s));
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      const one = { headers: req.headers, body, url: req.url ?? "", method: req.method ?? "" };
      got.push(one);
      answer(one, res);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return { got, sockets, base: `127.0.0.1:${port}` };
}

const options = (url: string, timeoutMs = 10_000) => ({
  url,
  secret: SECRET,
  secretEnvVar: "HOOKS_SECRET",
  timeoutMs,
});

async function failure(p: Promise<unknown>): Promise<GatewaySendError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewaySendError);
  return err as GatewaySendError;
}

describe("postCallback", () => {
  it("POSTs the message signed v1 over its exact bytes, with a Content-Length (not chunked) and fetch's Accept and User-Agent", async () => {
    const r = await receiver((_got, res) => res.writeHead(204).end());
    await postCallback(options(`http://${r.base}/cb?x=1`), { kind: "reply", text: "héllo" });
    const got = r.got[0] as Got;
    expect(got.method).toBe("POST");
    expect(got.url).toBe("/cb?x=1");
    expect(JSON.parse(got.body)).toEqual({ kind: "reply", text: "héllo" });
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(got.body)));
    expect(got.headers["transfer-encoding"]).toBeUndefined();
    expect(got.headers).toMatchObject({ accept: "*/*", "user-agent": "node" });
    const ts = String(got.headers["x-agentsvc-timestamp"]);
    expect(got.headers["x-agentsvc-signature"]).toBe(`v1=${signPayload(SECRET, ts, got.body)}`);
  });

  it("classifies each answer for the outbox: 503 with Retry-After retried after it, 401 credentials naming the variable, 404 dead-lettered", async () => {
    const statuses = [503, 401, 404];
    const r = await receiver((_got, res) => {
      const status = statuses[r.got.length - 1] as number;
      res.writeHead(status, status === 503 ? { "retry-after": "7" } : {}).end("a body nobody reads");
    });
    const url = `http://${r.base}/cb`;
    const busy = await failure(postCallback(options(url), { n: 1 }));
    expect(busy).toMatchObject({ status: 503, retryAfterMs: 7000, permanent: false, credentials: false });
    const refused = await failure(postCallback(options(url), { n: 2 }));
    expect(refused).toMatchObject({ status: 401, credentials: true, envVar: "HOOKS_SECRET" });
    const gone = await failure(postCallback(options(url), { n: 3 }));
    expect(gone).toMatchObject({ status: 404, permanent: true });
    expect(gone.message).toContain(`callback to ${url}`);
  });

  it("takes every 2xx as delivered, its first and last included (200, 204, 299)", async () => {
    const statuses = [200, 204, 299];
    const r = await receiver((_got, res) => res.writeHead(statuses[r.got.length - 1] as number).end());
    for (const n of [1, 2, 3]) await postCallback(options(`http://${r.base}/cb`), { n });
    expect(r.got).toHaveLength(3);
  });

  it("does not follow a redirect: a 307 is an answer (retried), and its target receives nothing", async () => {
    const target = await receiver((_got, res) => res.writeHead(200).end());
    const r = await receiver((_got, res) =>
      res.writeHead(307, { location: `http://${target.base}/elsewhere` }).end(),
    );
    const err = await failure(postCallback(options(`http://${r.base}/cb`), { n: 1 }));
    expect(err).toMatchObject({ status: 307, permanent: false });
    expect(target.got).toHaveLength(0);
  });

  it("reuses one kept-alive connection for callbacks one after another", async () => {
    const r = await receiver((_got, res) => res.writeHead(200).end("{}"));
    for (let n = 0; n < 3; n++) await postCallback(options(`http://${r.base}/cb`), { n });
    expect(r.got).toHaveLength(3);
    expect(r.sockets.size).toBe(1);
  });

  it("closes a kept-alive connection before the receiver's announced keep-alive timeout runs out", async () => {
    const r = await receiver((_got, res) => res.writeHead(200, { "keep-alive": "timeout=2" }).end());
    // The receiver itself would keep it a minute: a close now is the client's.
    const [server] = servers;
    (server as Server).keepAliveTimeout = 60_000;
    await postCallback(options(`http://${r.base}/cb`), { n: 1 });
    const [socket] = [...r.sockets];
    await once(socket as Socket, "end");
    expect(r.got).toHaveLength(1);
  });

  it("a receiver that drops the connection before answering is a network failure the outbox retries", async () => {
    const r = await receiver((_got, res) => res.socket?.destroy());
    const err = await failure(postCallback(options(`http://${r.base}/cb`), { n: 1 }));
    expect(err).toMatchObject({ status: undefined, permanent: false, credentials: false });
    expect(err.message).toContain("failed (network)");
  });

  it("a refused connection is a network failure naming the cause", async () => {
    const r = await receiver((_got, res) => res.end());
    const base = r.base;
    const s = servers.pop() as Server;
    await new Promise<void>((ok) => s.close(() => ok()));
    const err = await failure(postCallback(options(`http://${base}/cb`), { n: 1 }));
    expect(err.message).toContain("ECONNREFUSED");
    expect(err.message).toContain(`callback to http://${base}/cb`);
    expect(err.permanent).toBe(false);
  });

  it("gives up on a receiver that does not answer within the timeout: a network failure, its connection closed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const r = await receiver(() => {}); // reads the body, never answers
    const sent = postCallback(options(`http://${r.base}/cb`, 5_000), { n: 1 });
    await vi.waitFor(() => expect(r.got).toHaveLength(1), { interval: 5, timeout: 60_000 });
    const [socket] = [...r.sockets];
    const closed = once(socket as Socket, "close");
    vi.advanceTimersByTime(5_000);
    const err = await failure(sent);
    expect(err.message).toContain("no answer within 5000 ms");
    expect(err.permanent).toBe(false);
    await closed;
  });

  it("an answer whose body never ends: the call succeeds on its status, and the connection is closed at the timeout instead of reused", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const r = await receiver((_got, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial"); // 7 of 100 bytes
    });
    await postCallback(options(`http://${r.base}/cb`, 5_000), { n: 1 });
    const [socket] = [...r.sockets];
    const closed = once(socket as Socket, "close");
    vi.advanceTimersByTime(5_000);
    await closed;
  });

  it("https: a receiver whose certificate is not trusted is refused (a network failure), nothing sent in the clear", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentsvc-callback-tls-"));
    try {
      execFileSync(
        "openssl",
        [
          ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
          ...["-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
          ...["-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem")],
        ],
        { stdio: "ignore" },
      );
      const tls = createTlsServer({
        key: readFileSync(join(dir, "k.pem")),
        cert: readFileSync(join(dir, "c.pem")),
      });
      const r = await receiver((_got, res) => res.writeHead(200).end(), tls);
      const err = await failure(postCallback(options(`https://${r.base}/cb`), { n: 1 }));
      expect(err.message).toMatch(/self[- ]signed certificate/i);
      expect(r.got).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
