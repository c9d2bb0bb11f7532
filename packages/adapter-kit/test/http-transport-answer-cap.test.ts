// An answer too large to keep: the transport holds a kept body in memory, so it stops at
// MAX_ANSWER_BYTES (32 MiB; a platform's JSON is far smaller: Telegram getUpdates gives at most 100
// updates, https://core.telegram.org/bots/api#getupdates) and fails naming the bound, classified by
// the answer's status as the platform's failure (not a network failure retried as one). A body that
// inflates past the bound is refused too.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import {
  fetchForSend,
  GatewaySendError,
  HttpAnswerTooLargeError,
  httpTransport,
  MAX_ANSWER_BYTES,
  PlatformCallError,
  PlatformClient,
} from "../src/index.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const s = createServer((req, res) => {
    req.resume();
    req.on("end", () => answer(req, res));
  });
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  servers.push(s);
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** A platform whose 200 answer never ends: 64 KiB chunks as fast as the socket takes them. */
async function endless() {
  const state = { sent: 0, closed: undefined as Promise<unknown> | undefined };
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const base = await serve((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    state.closed = once(res, "close");
    const more = () => {
      while (!res.destroyed) {
        state.sent += chunk.byteLength;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
    };
    more();
  });
  return { base, state };
}

describe("the answer's size bound", () => {
  it("fails a platform call whose answer streams past 32 MiB as the platform's 200, naming the bound, the connection cut", async () => {
    const { base, state } = await endless();
    const client = new PlatformClient({ platform: "acme", timeoutMs: 60_000 });
    const failed = await client.json("getUpdates", `${base}/u`).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(PlatformCallError);
    const err = failed as PlatformCallError;
    expect(err.facts).toEqual({ status: 200, detail: `the answer is over ${MAX_ANSWER_BYTES} bytes` });
    expect(err.cause).toBeInstanceOf(HttpAnswerTooLargeError);
    expect(MAX_ANSWER_BYTES).toBe(32 * 1024 * 1024);
    // The server stopped: its answer was cut soon after the bound, not read on.
    await state.closed;
    expect(state.sent).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(state.sent).toBeLessThan(2 * MAX_ANSWER_BYTES);
  });

  it("gives the outbox's send the platform's failure for it, not a network one", async () => {
    const { base } = await endless();
    const res = await fetchForSend(
      `${base}/send`,
      { method: "POST", body: "{}" },
      { platform: "acme", call: "send" },
    );
    const failed = await res.text().catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(GatewaySendError);
    expect((failed as Error).message).toBe(
      `acme: send answered 200 (the answer is over ${MAX_ANSWER_BYTES} bytes)`,
    );
  });

  it("keeps a body of exactly the bound and refuses one byte more", async () => {
    const base = await serve((req, res) => res.end("x".repeat(req.url === "/at" ? 10 : 11)));
    const ask = (path: string) =>
      httpTransport.request(`${base}${path}`, {
        method: "GET",
        headers: {},
        timeoutMs: 10_000,
        maxBytes: 10,
      });
    expect(await (await ask("/at")).text()).toBe("x".repeat(10));
    const failed = await (await ask("/over")).text().catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(HttpAnswerTooLargeError);
    expect(failed).toMatchObject({ maxBytes: 10, status: 200, message: "the answer is over 10 bytes" });
  });

  it("names what was too large: the failure carries the body's first bytes as they came, at most 16 KiB", async () => {
    // A getUpdates answer over the bound: Telegram's reader takes the update_id from its start.
    const body = `{"ok":true,"result":[{"update_id":7,"message":{"text":"${"z".repeat(40_000)}"}}]}`;
    const base = await serve((_req, res) => res.end(body));
    const raw = await httpTransport.request(base, {
      method: "GET",
      headers: {},
      timeoutMs: 10_000,
      maxBytes: 20_000,
    });
    const failed = (await raw.text().catch((err: unknown) => err)) as HttpAnswerTooLargeError;
    expect(failed).toBeInstanceOf(HttpAnswerTooLargeError);
    expect(failed.head.toString()).toBe(body.slice(0, 16 * 1024));
    // Over the bound once decoded: the bytes as they came, still compressed.
    const packed = gzipSync(body);
    const gz = await serve((_req, res) => res.writeHead(200, { "content-encoding": "gzip" }).end(packed));
    const zipped = await httpTransport.request(gz, {
      method: "GET",
      headers: {},
      timeoutMs: 10_000,
      maxBytes: 20_000,
    });
    const over = (await zipped.text().catch((err: unknown) => err)) as HttpAnswerTooLargeError;
    expect(over.head).toEqual(packed.subarray(0, 16 * 1024));
  });

  it("names what was too large from a body that came in small pieces: exactly its first 16 KiB", async () => {
    // Chunked pieces of 5,000 bytes reach the client as data events of at most that size: the head
    // is put together from several and cut inside the fourth.
    const body = Buffer.from(
      Array.from({ length: 30_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(""),
    );
    const base = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      for (let at = 0; at < body.byteLength; at += 5_000) res.write(body.subarray(at, at + 5_000));
      res.end();
    });
    const raw = await httpTransport.request(base, {
      method: "GET",
      headers: {},
      timeoutMs: 10_000,
      maxBytes: 25_000,
    });
    const failed = (await raw.text().catch((err: unknown) => err)) as HttpAnswerTooLargeError;
    expect(failed).toBeInstanceOf(HttpAnswerTooLargeError);
    expect(failed.head).toEqual(body.subarray(0, 16 * 1024));
  });

  it("refuses a small gzip or brotli answer that inflates past the bound, and reads one that inflates to it", async () => {
    const bodies: Record<string, Buffer> = {
      "/at": gzipSync(Buffer.alloc(1000, 0x20)),
      "/over": gzipSync(Buffer.alloc(1001, 0x20)),
      "/br-over": brotliCompressSync(Buffer.alloc(1001, 0x20)),
    };
    const base = await serve((req, res) => {
      const coding = req.url === "/br-over" ? "br" : "gzip";
      res.writeHead(203, { "content-encoding": coding }).end(bodies[req.url ?? ""]);
    });
    const ask = (path: string) =>
      httpTransport.request(`${base}${path}`, {
        method: "GET",
        headers: {},
        timeoutMs: 10_000,
        maxBytes: 1000,
      });
    expect((await (await ask("/at")).bytes()).byteLength).toBe(1000);
    const failed = await (await ask("/over")).bytes().catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(HttpAnswerTooLargeError);
    expect(failed).toMatchObject({ maxBytes: 1000, status: 203, name: "HttpAnswerTooLargeError" });
    const br = await (await ask("/br-over")).bytes().catch((err: unknown) => err);
    expect(br).toBeInstanceOf(HttpAnswerTooLargeError);
  });
});
