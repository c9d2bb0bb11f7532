// readNodeBody over real HTTP on 127.0.0.1 (and on plain streams where no request is needed): a
// body read whole, chunked or declared, the limit's edge, a client that hangs up before or while
// the read runs; unreadNodeRequest's test of an untouched request; joinChunks.
import { once } from "node:events";
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import {
  joinChunks,
  type NodeBodyResult,
  nodeBodyStream,
  readNodeBody,
  unreadNodeRequest,
} from "../src/index.js";
import { closeRig, open, serve } from "./node-http-rig.js";

const LIMIT = 1024;
afterEach(closeRig);

async function readingServer(limit: number, results: (NodeBodyResult | Error)[]): Promise<number> {
  return serve((req, res) => {
    readNodeBody(req, limit).then(
      (read) => {
        results.push(read);
        if (read.ok) res.end(`read ${read.bytes.byteLength}`);
        else res.writeHead(413, { connection: "close" }).end("too large");
      },
      (error: Error) => results.push(error),
    );
  });
}

/** Writes `parts` one after another, then reads the answer to the connection's end. */
async function exchange(port: number, parts: (string | Buffer)[]): Promise<string> {
  const socket = await open(port);
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (d: string) => {
    text += d;
  });
  for (const part of parts) if (!socket.write(part)) await once(socket, "drain");
  await once(socket, "end");
  return text;
}

const POST = "POST / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n";
const declared = (n: number) => `${POST}content-length: ${n}\r\n\r\n`;
const chunkedHead = `${POST}transfer-encoding: chunked\r\n\r\n`;
const chunk = (bytes: Buffer) =>
  Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]);
const lastChunk = "0\r\n\r\n";
/** Bytes whose order shows: byte i is i mod 251. */
const pattern = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

describe("readNodeBody over HTTP", () => {
  it("reads a chunked body of many pieces (no Content-Length) into its bytes, in order", async () => {
    const results: (NodeBodyResult | Error)[] = [];
    const port = await readingServer(1024 * 1024, results);
    const body = pattern(300 * 1024);
    const pieces = [0, 1, 2, 3, 4, 5].map((i) => chunk(body.subarray(i * 51_200, (i + 1) * 51_200)));
    const answer = await exchange(port, [chunkedHead, ...pieces, lastChunk]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    const read = results[0] as NodeBodyResult;
    expect(read.ok).toBe(true);
    expect(read.ok && Buffer.from(read.bytes).equals(body)).toBe(true);
  });

  it("reads a body of exactly the limit, declared or chunked, and refuses one byte more as too_large", async () => {
    const results: (NodeBodyResult | Error)[] = [];
    const port = await readingServer(LIMIT, results);
    const exact = pattern(LIMIT);
    expect(await exchange(port, [declared(LIMIT), exact])).toContain(`read ${LIMIT}`);
    expect(await exchange(port, [chunkedHead, chunk(exact), lastChunk])).toContain(`read ${LIMIT}`);
    expect(await exchange(port, [declared(LIMIT + 1), pattern(LIMIT + 1)])).toMatch(/^HTTP\/1\.1 413 /);
    expect(await exchange(port, [chunkedHead, chunk(pattern(LIMIT + 1)), lastChunk])).toMatch(
      /^HTTP\/1\.1 413 /,
    );
    expect(results.slice(2)).toEqual([
      { ok: false, reason: "too_large" },
      { ok: false, reason: "too_large" },
    ]);
  });

  it("refuses a declared length over the limit before a byte of the body has arrived", async () => {
    const results: (NodeBodyResult | Error)[] = [];
    const port = await readingServer(LIMIT, results);
    const socket = await open(port);
    socket.write(declared(LIMIT + 1));
    // The answer comes while the client has sent no body at all.
    const [first] = (await once(socket, "data")) as [Buffer];
    expect(first.toString("utf8")).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("lets a client that writes a 2 MiB chunked body before reading read the 413 (the rest is drained)", async () => {
    const port = await readingServer(LIMIT, []);
    const piece = chunk(Buffer.alloc(64 * 1024, 0x61));
    const answer = await exchange(port, [chunkedHead, ...Array.from({ length: 32 }, () => piece), lastChunk]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("rejects with the request's 'aborted' error when the client hangs up mid-body", async () => {
    let entered!: () => void;
    const reached = new Promise<void>((r) => {
      entered = r;
    });
    const read = new Promise<unknown>((resolve) => {
      void serve((req) => {
        const reading = readNodeBody(req, LIMIT);
        entered();
        reading.then(resolve, resolve);
      }).then(async (port) => {
        const socket = await open(port);
        socket.write(`${declared(500)}first bytes`);
        await reached;
        socket.destroy();
      });
    });
    expect(await read).toMatchObject({ message: "aborted" });
  });

  it("rejects at once, with 'aborted', a request whose client hung up before the read began", async () => {
    let hungUp!: (req: IncomingMessage) => void;
    const gone = new Promise<IncomingMessage>((r) => {
      hungUp = r;
    });
    let entered!: () => void;
    const reached = new Promise<void>((r) => {
      entered = r;
    });
    const port = await serve((req) => {
      // The handler awaits something else (a sign-in check, a lookup) while the client goes away.
      req.once("error", () => {});
      req.once("close", () => hungUp(req));
      entered();
    });
    const socket = await open(port);
    socket.write(`${declared(500)}first bytes`);
    await reached;
    socket.destroy();
    const req = await gone;
    await expect(readNodeBody(req, LIMIT)).rejects.toMatchObject({ message: "aborted" });
  });
});

describe("readNodeBody on a plain stream", () => {
  it("reads a stream that has no headers (not a request) to its end", async () => {
    const stream = new PassThrough();
    const reading = readNodeBody(stream, 10);
    stream.end("abc");
    const read = await reading;
    expect(read.ok && Buffer.from(read.bytes).toString()).toBe("abc");
  });

  it("rejects 'closed before its end' when the stream is destroyed without an error, and at once when it already was", async () => {
    const stream = new PassThrough();
    const reading = readNodeBody(stream, 10);
    stream.write("ab");
    stream.destroy();
    await expect(reading).rejects.toThrow("request body: the connection closed before its end");
    await expect(readNodeBody(stream, 10)).rejects.toThrow(
      "request body: the connection closed before its end",
    );
  });

  it("leaves no listener of its own on the stream once settled, and only the drain's past the limit", async () => {
    const whole = new PassThrough();
    const reading = readNodeBody(whole, 10);
    whole.end("abc");
    await reading;
    for (const event of ["data", "end", "error", "close"]) expect(whole.listenerCount(event)).toBe(0);

    const big = new PassThrough();
    const refused = readNodeBody(big, 2, { bytes: 1024, ms: 60_000 });
    big.write("abcd");
    expect(await refused).toEqual({ ok: false, reason: "too_large" });
    for (const event of ["data", "end", "error", "close"]) expect(big.listenerCount(event)).toBe(1);
    big.end();
    await once(big, "close");
  });
});

describe("unreadNodeRequest", () => {
  it("gives Node's request only while nobody has read it, and nothing for another env", async () => {
    const seen: (IncomingMessage | undefined)[] = [];
    const port = await serve((req, res) => {
      seen.push(unreadNodeRequest({ incoming: req }));
      req.on("data", () => {});
      seen.push(unreadNodeRequest({ incoming: req }));
      req.on("end", () => {
        seen.push(unreadNodeRequest({ incoming: req }));
        res.end("done");
      });
    });
    await exchange(port, [declared(3), "abc"]);
    expect(seen[0]).toBeDefined();
    expect(seen.slice(1)).toEqual([undefined, undefined]);
    expect(unreadNodeRequest(undefined)).toBeUndefined();
    expect(unreadNodeRequest({})).toBeUndefined();
    expect(unreadNodeRequest({ incoming: new PassThrough() })).toBeUndefined();
  });

  it("a body stream nobody has read from yet leaves the request unread", async () => {
    const seen: (IncomingMessage | undefined)[] = [];
    const port = await serve((req, res) => {
      const body = nodeBodyStream(req);
      setImmediate(() => {
        seen.push(unreadNodeRequest({ incoming: req }));
        void new Response(body).text().then((text) => res.end(text));
      });
    });
    expect(await exchange(port, [declared(3), "abc"])).toMatch(/abc$/);
    expect(seen[0]).toBeDefined();
  });
});

describe("joinChunks", () => {
  it("returns a lone chunk as it is, joins several in order, and gives an empty array for none", () => {
    const one = new Uint8Array([1, 2, 3]);
    expect(joinChunks([one], 3)).toBe(one);
    expect(joinChunks([new Uint8Array([1, 2]), new Uint8Array([3]), new Uint8Array([4, 5])], 5)).toEqual(
      new Uint8Array([1, 2, 3, 4, 5]),
    );
    expect(joinChunks([], 0)).toEqual(new Uint8Array());
  });
});
