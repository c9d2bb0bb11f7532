// A body refused for its size over real HTTP on 127.0.0.1: the rest is drained so a client that
// writes everything before reading reads the 413, and the socket's own destroySoon (the server's
// lingering close sets one) is put back when the drain ends.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, Socket } from "node:net";
import { rawPost } from "@agentsvc/raw-http";
import { afterEach, describe, expect, it } from "vitest";
import { nodeBodyStream, readNodeBody } from "../src/index.js";

const LIMIT = 1024;
let server: Server | undefined;
afterEach(async () => {
  const s = server;
  server = undefined;
  if (s) await new Promise<void>((r) => s.close(() => r()));
});

function refuse(res: ServerResponse): void {
  res.writeHead(413, { "content-type": "text/plain", connection: "close" }).end("too large");
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const s = createServer(handle);
  server = s;
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  return (s.address() as AddressInfo).port;
}

describe("drain past the limit, over HTTP", () => {
  it("puts the socket's own destroySoon back when the drain ends and runs it (the server's lingering close is not lost)", async () => {
    const own: Socket[] = [];
    const lingering = function (this: Socket) {
      own.push(this);
      Socket.prototype.destroySoon.call(this);
    };
    const sockets: Socket[] = [];
    const closed: Promise<unknown>[] = [];
    const port = await serve((req, res) => {
      void readNodeBody(req, LIMIT).then((read) => (read.ok ? res.end("ok") : refuse(res)));
    });
    server?.on("connection", (socket: Socket) => {
      sockets.push(socket);
      closed.push(new Promise((r) => socket.once("close", r)));
      socket.destroySoon = lingering;
    });
    const answer = await rawPost(port, { bytes: 2 * 1024 * 1024 });
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 413 /);
    // The client reads the server's FIN before the server has read the client's last bytes.
    await Promise.all(closed);
    expect(own).toEqual(sockets);
    expect(sockets.map((s) => s.destroySoon)).toEqual([lingering]);
  });

  it("lets a client that writes a whole body before reading read the 413 when a stream reader cancels (an upload refused mid-way)", async () => {
    const port = await serve((req, res) => {
      const reader = nodeBodyStream(req).getReader();
      void reader.read().then(async () => {
        await reader.cancel();
        refuse(res);
      });
    });
    const answer = await rawPost(port, { bytes: 4 * 1024 * 1024 });
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.body).toContain("too large");
  });

  it("lets a client that writes 12 MiB before it reads anything read the 413: the default bound drains more than a client has sent when it sees the answer", async () => {
    // At load 25 a Node client flooding loopback wrote past 9 MiB before its loop read the FIN; an
    // 8 MiB bound cut it off with a reset (EPIPE) and it never read the 413.
    const port = await serve((req, res) => {
      void readNodeBody(req, LIMIT).then(() => refuse(res));
    });
    const answer = await rawPost(port, { bytes: 12 * 1024 * 1024 });
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("reads a whole body through the stream when nobody cancels", async () => {
    const port = await serve((req, res) => {
      void new Response(nodeBodyStream(req)).arrayBuffer().then((b) => res.end(String(b.byteLength)));
    });
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: Buffer.alloc(300_000, 1) });
    expect(await res.text()).toBe("300000");
  });
});
