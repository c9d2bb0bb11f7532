// A body past the limit over real HTTP on 127.0.0.1: the server answers 413 with Connection: close
// as soon as the limit is crossed (or a Content-Length declares more), and a client that reads its
// answer only after writing its whole body still reads that 413. Without the drain Node's server
// destroyed the socket once the answer was out and the client's next write got EPIPE / ECONNRESET.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { rawPost } from "@agentsvc/raw-http";
import { afterEach, describe, expect, it } from "vitest";
import { readNodeBody } from "../src/index.js";

const LIMIT = 1024 * 1024;
/** 6 MiB past the limit: more than the socket buffers hold once the server stops reading. */
const SENT = 7 * 1024 * 1024;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

async function listening(): Promise<number> {
  server = createServer((req, res) => {
    void readNodeBody(req, LIMIT).then((read) => {
      if (read.ok) res.end("ok");
      else res.writeHead(413, { connection: "close" }).end("payload too large");
    });
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

describe("readNodeBody past the limit, over HTTP", () => {
  it("a chunked body: the client reads the 413 after writing 7 MiB", async () => {
    const answer = await rawPost(await listening(), { bytes: SENT, framing: "chunked" });
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.body).toContain("payload too large");
  });

  it("a Content-Length over the limit: the client reads the 413 after writing its 7 MiB", async () => {
    const answer = await rawPost(await listening(), { bytes: SENT });
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("a Content-Length over the limit is answered 413 before a byte of the body is sent", async () => {
    const socket = connect(await listening(), "127.0.0.1");
    const answered = new Promise<string>((resolve, reject) => {
      socket.on("error", reject);
      socket.setEncoding("utf8").once("data", resolve);
    });
    socket.write(`POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${SENT}\r\n\r\n`);
    expect(await answered).toMatch(/^HTTP\/1\.1 413 /);
    socket.destroy();
  });
});
