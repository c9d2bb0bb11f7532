// Once a refusal with Connection: close is out, the rest of the body is skipped inside Node's HTTP
// parser (node-parser-skip.ts) instead of copied into Buffers only to be dropped; the byte bound
// still counts it, and the parser, which Node pools across connections, gets its body hook back.
import { once } from "node:events";
import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { readNodeBody } from "../src/index.js";
import { closeRig, open, serve } from "./node-http-rig.js";

const LIMIT = 1024;
const KiB = 1024;
afterEach(closeRig);

const post = (n: number) => `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${n}\r\n\r\n`;

/**
 * A server refusing every body over LIMIT with 413 and Connection: close; `seen` gets the bytes of
 * each request's 'data' events after its refusal went out, when the request is done.
 */
async function refusingServer(seen: (afterAnswer: number, req: IncomingMessage) => void): Promise<number> {
  return serve((req, res) => {
    void readNodeBody(req, LIMIT).then((read) => {
      if (read.ok) return void res.end(Buffer.from(read.bytes).toString("latin1"));
      let afterAnswer = 0;
      res.writeHead(413, { connection: "close" }).end("x", () => {
        req.on("data", (chunk: Buffer) => {
          afterAnswer += chunk.byteLength;
        });
      });
      req.once("close", () => seen(afterAnswer, req));
    });
  });
}

/** Sends `total` body bytes after a Content-Length of `total`, half-open (writing on after the FIN). */
async function sendAll(port: number, total: number) {
  const client = await open(port, true);
  client.on("error", () => {});
  client.resume();
  client.write(post(total));
  const piece = Buffer.alloc(16 * KiB, 0x61);
  for (let sent = 0; sent < total && !client.destroyed; sent += piece.length)
    if (!client.write(piece.subarray(0, Math.min(piece.length, total - sent))))
      await Promise.race([once(client, "drain"), once(client, "close")]);
  client.end();
  return client;
}

describe("the rest of a refused body, once the 413 is out", () => {
  it("reaches no 'data' listener (the parser skips it) and the request still ends", async () => {
    let done!: (r: { afterAnswer: number; ended: boolean }) => void;
    const result = new Promise<{ afterAnswer: number; ended: boolean }>((r) => {
      done = r;
    });
    const port = await refusingServer((afterAnswer, req) => done({ afterAnswer, ended: req.readableEnded }));
    await sendAll(port, 4 * 1024 * KiB);
    // Through 'data' events the drain saw megabytes after its answer (each piece a new Buffer).
    expect(await result).toEqual({ afterAnswer: 0, ended: true });
  });

  it("the next connection's body is read whole (Node reuses the parser, its body hook is back)", async () => {
    let refused!: () => void;
    const closed = new Promise<void>((r) => {
      refused = r;
    });
    const port = await refusingServer(() => refused());
    await sendAll(port, 256 * KiB);
    await closed;
    for (const body of ["hello", "a second body"]) {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body });
      expect(await res.text()).toBe(body);
    }
  });
});
