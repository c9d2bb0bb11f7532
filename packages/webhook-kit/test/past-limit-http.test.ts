// A body past the limit over real HTTP on 127.0.0.1: the server answers 413 with Connection: close
// as soon as the limit is crossed (or a Content-Length declares more), and a client that reads its
// answer only after writing its whole body still reads that 413. Without the drain Node's server
// destroyed the socket once the answer was out and the client's next write got EPIPE / ECONNRESET.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
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

/** POSTs SENT bytes (chunked, or with their Content-Length) and reads the answer only after the last write. */
function readsAfterSending(port: number, framing: "chunked" | "length"): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  const data = Buffer.alloc(64 * 1024, 0x61);
  const piece =
    framing === "chunked"
      ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")])
      : data;
  const head = framing === "chunked" ? "transfer-encoding: chunked" : `content-length: ${SENT}`;
  return new Promise((resolve, reject) => {
    socket.on("error", reject);
    let sent = 0;
    const pump = () => {
      while (sent < SENT) {
        sent += data.length;
        if (!socket.write(piece)) return void socket.once("drain", pump);
      }
      socket.write(framing === "chunked" ? "0\r\n\r\n" : "", () => {
        let text = "";
        socket.setEncoding("utf8");
        socket.on("data", (d: string) => {
          text += d;
        });
        socket.on("end", () => resolve(text));
      });
    };
    socket.write(`POST / HTTP/1.1\r\nhost: 127.0.0.1\r\n${head}\r\n\r\n`);
    pump();
  });
}

describe("readNodeBody past the limit, over HTTP", () => {
  it("a chunked body: the client reads the 413 after writing 7 MiB", async () => {
    const answer = await readsAfterSending(await listening(), "chunked");
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain("payload too large");
  });

  it("a Content-Length over the limit: the client reads the 413 after writing its 7 MiB", async () => {
    const answer = await readsAfterSending(await listening(), "length");
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
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
