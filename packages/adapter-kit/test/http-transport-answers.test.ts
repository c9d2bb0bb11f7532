// What the transport makes of an answer and of a call that ends early, against 127.0.0.1: which
// statuses are ok, the head as fetch's Response gives it, codings and the byte order mark, a body cut
// short, the caller's abort, the one timeout (a fake clock), and what the server receives.
import { getEventListeners, once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpTimeoutError, HttpTransport, httpTransport } from "../src/index.js";

const servers: Server[] = [];
const transports: HttpTransport[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const t of transports.splice(0)) t.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Each request the server read: its head and body. */
interface Got {
  req: IncomingMessage;
  body: string;
}

async function serve(answer: (got: Got, res: ServerResponse) => void) {
  const got: Got[] = [];
  let arrived: () => void = () => {};
  const first = new Promise<void>((r) => {
    arrived = r;
  });
  const s = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      got.push({ req, body });
      arrived();
      answer({ req, body }, res);
    });
  });
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  servers.push(s);
  return { base: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, got, first };
}

const get = (url: string, extra: { signal?: AbortSignal; timeoutMs?: number } = {}) =>
  httpTransport.request(url, { method: "GET", headers: {}, timeoutMs: 10_000, ...extra });

describe("an answer", () => {
  it("is ok for 200 to 299 only, its status text and headers read as fetch reads them", async () => {
    const r = await serve(({ req }, res) => {
      const status = Number(req.url?.slice(1));
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.writeHead(status, `said ${status}`).end();
    });
    const seen = [];
    for (const status of [200, 204, 299, 300, 404]) {
      const a = await get(`${r.base}/${status}`);
      seen.push([a.status, a.ok, a.statusText]);
      expect(a.headers.get("Set-Cookie")).toBe("a=1, b=2");
      expect(a.headers.get("x-absent")).toBeNull();
      await a.text();
    }
    expect(seen).toEqual([
      [200, true, "said 200"],
      [204, true, "said 204"],
      [299, true, "said 299"],
      [300, false, "said 300"],
      [404, false, "said 404"],
    ]);
  });

  it("decodes brotli, x-gzip and stacked codings last-applied first", async () => {
    const text = '{"ok":true}';
    const answers: Record<string, [string, Buffer]> = {
      "/br": ["br", brotliCompressSync(text)],
      "/x-gzip": ["x-gzip", gzipSync(text)],
      "/both": ["gzip, br", brotliCompressSync(gzipSync(text))],
    };
    const r = await serve(({ req }, res) => {
      const [coding, body] = answers[req.url ?? ""] as [string, Buffer];
      res.writeHead(200, { "content-encoding": coding }).end(body);
    });
    for (const path of Object.keys(answers)) expect(await (await get(`${r.base}${path}`)).text()).toBe(text);
  });

  it("hands an identity answer on as it came, and fails a corrupt gzip one with zlib's error", async () => {
    const r = await serve(({ req }, res) => {
      const coding = req.url === "/identity" ? "identity" : "gzip";
      res.writeHead(200, { "content-encoding": coding }).end("not gzip at all");
    });
    expect(await (await get(`${r.base}/identity`)).text()).toBe("not gzip at all");
    await expect((await get(`${r.base}/corrupt`)).text()).rejects.toMatchObject({ code: "Z_DATA_ERROR" });
  });

  it("reads a gzip answer cut before its trailer as far as it goes, as fetch does", async () => {
    const text = "x".repeat(100);
    const whole = gzipSync(text);
    const r = await serve((_got, res) => {
      res.writeHead(200, { "content-encoding": "gzip" }).end(whole.subarray(0, whole.length - 8));
    });
    expect(await (await get(`${r.base}/g`)).text()).toBe(text);
  });

  it("drops a whole byte order mark only: an answer that is just one reads empty, a look-alike character stays", async () => {
    const bodies: Record<string, Buffer> = {
      "/bom": Buffer.from([0xef, 0xbb, 0xbf]),
      "/alike": Buffer.from("\ufec0ok", "utf8"), // EF BB 80
      "/two": Buffer.from("ok", "utf8"),
      "/late": Buffer.from("a\ufeff", "utf8"),
      // Three bytes that share two of the mark's: E1 BB BF, EF BC BF, 61 C2 BF.
      "/near": Buffer.from("\u1effa\uff3fa\u00bf", "utf8"),
      "/near2": Buffer.from("\uff3f", "utf8"),
      "/near3": Buffer.from("a\u00bf", "utf8"),
    };
    const r = await serve(({ req }, res) => res.end(bodies[req.url ?? ""]));
    expect(await (await get(`${r.base}/bom`)).text()).toBe("");
    expect(await (await get(`${r.base}/alike`)).text()).toBe("\ufec0ok");
    expect(await (await get(`${r.base}/two`)).text()).toBe("ok");
    expect(await (await get(`${r.base}/late`)).text()).toBe("a\ufeff");
    expect(await (await get(`${r.base}/near`)).text()).toBe("\u1effa\uff3fa\u00bf");
    expect(await (await get(`${r.base}/near2`)).text()).toBe("\uff3f");
    expect(await (await get(`${r.base}/near3`)).text()).toBe("a\u00bf");
  });

  it("fails its body when the connection drops before the body's end", async () => {
    const r = await serve((_got, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial", () => res.socket?.destroy());
    });
    const a = await get(`${r.base}/cut`);
    await expect(a.text()).rejects.toThrow();
  });
});

describe("a call", () => {
  it("sends the caller's headers with the body's length, never chunked, and a URL object as given", async () => {
    const r = await serve((_got, res) => res.end());
    const body = '{"name":"héllo"}';
    await (
      await httpTransport.request(new URL(`${r.base}/p?q=1`), {
        method: "PUT",
        headers: { "content-type": "application/json", "x-kept": "1" },
        body,
        timeoutMs: 10_000,
      })
    ).text();
    const [one] = r.got;
    expect(one?.req.method).toBe("PUT");
    expect(one?.req.url).toBe("/p?q=1");
    expect(one?.body).toBe(body);
    expect(one?.req.headers["content-type"]).toBe("application/json");
    expect(one?.req.headers["x-kept"]).toBe("1");
    expect(one?.req.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(one?.req.headers["transfer-encoding"]).toBeUndefined();
  });

  it("rejects with Node's error when nobody listens", async () => {
    const r = await serve(() => {});
    servers.pop()?.close();
    await expect(get(`${r.base}/x`)).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("asks nothing when the caller's signal is already aborted, and rejects with its reason", async () => {
    const r = await serve((_got, res) => res.end());
    const stop = new AbortController();
    const reason = new Error("stopping");
    stop.abort(reason);
    await expect(get(`${r.base}/x`, { signal: stop.signal })).rejects.toBe(reason);
    expect(r.got).toHaveLength(0);
  });

  it("rejects with the abort's reason while waiting for the head, and fails a body still arriving with it", async () => {
    const r = await serve((got, res) => {
      if (got.req.url === "/body") res.writeHead(200).write("part");
    });
    const waiting = new AbortController();
    const reason = new Error("stopping");
    const call = get(`${r.base}/head`, { signal: waiting.signal });
    await r.first;
    waiting.abort(reason);
    await expect(call).rejects.toBe(reason);

    const reading = new AbortController();
    const a = await get(`${r.base}/body`, { signal: reading.signal });
    reading.abort(reason);
    await expect(a.text()).rejects.toBe(reason);
  });

  it("cuts the connection on the caller's abort: the server sees the call it was answering closed", async () => {
    let answering: ServerResponse | undefined;
    const r = await serve((_got, res) => {
      answering = res;
    });
    const stop = new AbortController();
    const call = get(`${r.base}/head`, { signal: stop.signal });
    await r.first;
    const closed = once(answering as ServerResponse, "close");
    stop.abort(new Error("stopping"));
    await expect(call).rejects.toThrow("stopping");
    await closed;
  });

  it("times out before the head as 'no answer', after it as 'did not end', with one fake-clock timeout", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const r = await serve((got, res) => {
      if (got.req.url === "/body") res.writeHead(200).write("part");
    });
    const call = get(`${r.base}/head`, { timeoutMs: 5_000 });
    const failed = call.catch((err: unknown) => err);
    await r.first;
    vi.advanceTimersByTime(5_000);
    // The request is given up: its connection closed, not left waiting.
    await once(r.got[0]?.req.socket as NonNullable<IncomingMessage["socket"]>, "close");
    const head = (await failed) as HttpTimeoutError;
    expect(head).toBeInstanceOf(HttpTimeoutError);
    expect(head).toMatchObject({
      headReceived: false,
      message: "no answer within 5000 ms",
      name: "HttpTimeoutError",
    });

    const a = await get(`${r.base}/body`, { timeoutMs: 5_000 });
    const body = a.text().catch((err: unknown) => err);
    vi.advanceTimersByTime(5_000);
    expect(await body).toMatchObject({
      headReceived: true,
      message: "the answer did not end within 5000 ms",
    });
  });

  it("rejects a target that is no URL", async () => {
    await expect(get("not a url")).rejects.toMatchObject({ code: "ERR_INVALID_URL" });
  });

  it("leaves no listener on the caller's signal once the call is over", async () => {
    const r = await serve((_got, res) => res.end("done"));
    const stop = new AbortController();
    for (let n = 0; n < 3; n++) await (await get(`${r.base}/x`, { signal: stop.signal })).text();
    expect(getEventListeners(stop.signal, "abort")).toHaveLength(0);
  });

  it("drops a body discarded before it comes: neither kept nor bounded", async () => {
    let go: () => void = () => {};
    const sent = new Promise<void>((r) => {
      go = r;
    });
    const r = await serve(({ req }, res) => {
      if (req.url === "/go") return void res.end(() => go());
      res.writeHead(200).flushHeaders();
      // The body only once the client has discarded: a request to /go says so.
      void sent.then(() => res.end("x".repeat(100)));
    });
    const a = await httpTransport.request(`${r.base}/big`, {
      method: "GET",
      headers: {},
      timeoutMs: 10_000,
      maxBytes: 10,
    });
    a.discard();
    await (await get(`${r.base}/go`)).text();
    expect(await a.text()).toBe("");
  });

  it("lets a discarded body fail unread without an unhandled rejection (a callback drops its answer)", async () => {
    const r = await serve((_got, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial", () => res.socket?.destroy());
    });
    const a = await get(`${r.base}/cut`);
    a.discard();
    // The failure settles on a later turn: one more round trip lets it surface if it would.
    await (await get(`${r.base}/next`).catch(() => undefined))?.text().catch(() => undefined);
  });

  it("goes through the proxy when --use-env-proxy is among NODE_OPTIONS' flags", async () => {
    const target = await serve((_got, res) => res.end("direct"));
    const proxy = await serve((_got, res) => res.end("from the proxy"));
    const t = new HttpTransport({
      env: { NODE_OPTIONS: "--max-old-space-size=512 --use-env-proxy", HTTP_PROXY: proxy.base },
      execArgv: [],
    });
    transports.push(t);
    const a = await t.request(`${target.base}/x`, { method: "GET", headers: {}, timeoutMs: 10_000 });
    expect(await a.text()).toBe("from the proxy");
  });
});
