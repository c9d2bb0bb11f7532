// fetchForSend against 127.0.0.1: an answer of any status is handed back (a redirect too, not
// followed); a refused connection, a timeout and an answer cut off mid-body are the platform's network
// failure (retried by the outbox); an abort by the caller's signal is thrown as it is; the server sees
// what fetch sent. parseAnswer: JSON, or {} for a proxy's HTML page.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GatewaySendError } from "../src/errors.js";
import { fetchForSend, parseAnswer } from "../src/send-failure.js";

const call = { platform: "acme", call: "messages call" };

describe("fetchForSend", () => {
  it("hands back the platform's answer, an error status too", async () => {
    const server = createServer((_req, res) => void res.writeHead(503).end("busy"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const res = await fetchForSend(url, { method: "POST", body: "x" }, call);
      expect(res.status).toBe(503);
      expect(await res.text()).toBe("busy");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("turns a refused connection into the platform's network failure, not permanent", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await new Promise((r) => server.close(r));
    const failed = await fetchForSend(url, {}, call).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(GatewaySendError);
    expect((failed as GatewaySendError).message).toMatch(/^acme: messages call failed \(network\)/);
    expect((failed as GatewaySendError).permanent).toBe(false);
  });

  it("throws the caller's abort as it is", async () => {
    const abort = new AbortController();
    abort.abort(new Error("stopping"));
    const failed = await fetchForSend("http://127.0.0.1:9/", {}, call, abort.signal).catch(
      (err: unknown) => err,
    );
    expect(failed).not.toBeInstanceOf(GatewaySendError);
  });
});

const servers: Server[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A platform on 127.0.0.1: `answer` decides each request once its body is read. */
async function platform(answer: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const got: { url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  let asked: () => void = () => {};
  /** Settles once the first request's body is read. */
  const arrived = new Promise<void>((r) => {
    asked = r;
  });
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      got.push({ url: req.url ?? "", headers: req.headers, body });
      asked();
      answer(req, body, res);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return { got, arrived, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function sendError(p: Promise<unknown>): Promise<GatewaySendError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewaySendError);
  return err as GatewaySendError;
}

describe("fetchForSend on the kit's transport", () => {
  const form = {
    method: "POST",
    headers: { Authorization: "Basic QUM6dA==", "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ To: "+15550001", Body: "héllo" }).toString(),
  };

  it("sends what fetch sent: method, headers and body bytes", async () => {
    const p = await platform((_req, _body, res) => res.end("{}"));
    await (await fetchForSend(`${p.base}/m`, form, call)).text();
    await (await fetch(`${p.base}/m`, form)).text();
    const [viaTransport, viaFetch] = p.got;
    expect(viaTransport).toEqual(viaFetch);
    expect(viaTransport?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it("hands back a 429 with its Retry-After, read as before", async () => {
    const p = await platform((_req, _body, res) =>
      res.writeHead(429, { "retry-after": "3" }).end('{"code":20429}'),
    );
    const res = await fetchForSend(`${p.base}/m`, form, call);
    expect([res.status, res.ok, res.headers.get("Retry-After"), await res.json()]).toEqual([
      429,
      false,
      "3",
      { code: 20429 },
    ]);
  });

  it("hands back a redirect as the answer, not followed: its target receives nothing", async () => {
    const target = await platform((_req, _body, res) => res.end('{"sid":"SM1"}'));
    const p = await platform((_req, _body, res) =>
      res.writeHead(307, { location: `${target.base}/m` }).end(),
    );
    const res = await fetchForSend(`${p.base}/m`, form, call);
    expect(res.status).toBe(307);
    expect(target.got).toHaveLength(0);
  });

  it("an answer whose connection drops mid-body is the platform's network failure when read, not permanent", async () => {
    const p = await platform((_req, _body, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write('{"sid":', () => res.socket?.destroy());
    });
    const res = await fetchForSend(`${p.base}/m`, form, call);
    const err = await sendError(res.text());
    expect(err.message).toMatch(/^acme: messages call failed \(network\) \(the answer broke off/);
    expect(err.permanent).toBe(false);
  });

  it("a platform that never answers is a network failure after 300 s (fetch's bound)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const p = await platform(() => {}); // reads the body, never answers
    const sent = fetchForSend(`${p.base}/m`, form, call);
    let settled = false;
    sent.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    await p.arrived;
    vi.advanceTimersByTime(299_999);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    vi.advanceTimersByTime(1);
    const err = await sendError(sent);
    expect(err.message).toContain("no answer within 300000 ms");
    expect(err.permanent).toBe(false);
  });

  it("the caller's abort while the platform is silent is thrown as it is", async () => {
    const p = await platform(() => {});
    const abort = new AbortController();
    const sent = fetchForSend(`${p.base}/m`, form, call, abort.signal);
    await p.arrived;
    const reason = new Error("stopping");
    abort.abort(reason);
    await expect(sent).rejects.toBe(reason);
  });
});

describe("parseAnswer", () => {
  it("reads JSON and takes anything else as an empty answer", () => {
    expect(parseAnswer<{ sid: string }>('{"sid":"SM1"}')).toEqual({ sid: "SM1" });
    expect(parseAnswer("<html>502 Bad Gateway</html>")).toEqual({});
  });
});
