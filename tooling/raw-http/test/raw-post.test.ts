// rawPost against node:http servers on 127.0.0.1: the body it writes is the one it declares, in
// either framing, and a connection the server resets comes back as the socket's error.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { rawPost } from "../src/index.js";

let server: Server | undefined;
afterEach(async () => {
  const s = server;
  server = undefined;
  s?.closeAllConnections();
  if (s) await new Promise<void>((r) => s.close(() => r()));
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const s = createServer(handle);
  server = s;
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  return (s.address() as AddressInfo).port;
}

/** Answers with what it read: the body's length, the request's target and one header. */
const counting = (req: IncomingMessage, res: ServerResponse) => {
  let length = 0;
  req.on("data", (d: Buffer) => (length += d.length));
  req.on("end", () => {
    const seen = {
      length,
      url: req.url,
      marker: req.headers["x-marker"],
      chunked: !!req.headers["transfer-encoding"],
    };
    const body = JSON.stringify(seen);
    // With its length (not chunked): the body read is the JSON itself.
    res
      .writeHead(200, {
        "content-type": "application/json",
        "content-length": body.length,
        connection: "close",
      })
      .end(body);
  });
};

describe("rawPost", () => {
  it.each(["length", "chunked"] as const)(
    "writes the body it declares (%s framing, a last piece shorter than 64 KiB), then reads the status, headers and body",
    async (framing) => {
      const port = await serve(counting);
      const answer = await rawPost(port, {
        path: "/in?x=1",
        bytes: 200_000,
        framing,
        headers: { "x-marker": "m" },
      });
      expect(answer).toMatchObject({
        status: 200,
        statusLine: "HTTP/1.1 200 OK",
        sent: 200_000,
        ended: true,
        closed: true,
      });
      expect(answer.error).toBeUndefined();
      expect(answer.headers["content-type"]).toBe("application/json");
      expect(answer.head).toMatch(/^connection: close$/im);
      expect(JSON.parse(answer.body)).toEqual({
        length: 200_000,
        url: "/in?x=1",
        marker: "m",
        chunked: framing === "chunked",
      });
    },
  );

  it("resolves with the socket's error, not a rejection, when the server resets the connection at the request's head", async () => {
    const port = await serve((req) => req.socket.resetAndDestroy());
    const answer = await rawPost(port, { bytes: 32 * 1024 * 1024 });
    expect(["ECONNRESET", "EPIPE"]).toContain(answer.error);
    expect(answer).toMatchObject({ status: 0, closed: true });
    expect(answer.sent).toBeLessThan(32 * 1024 * 1024);
  });

  it("halfOpen: writes its whole body after the server's early answer and FIN, then ends its side", async () => {
    // A bare TCP server: answers at the first byte, sends its FIN, and keeps reading to the client's.
    let received!: Promise<number>;
    const raw = createNetServer((socket) => {
      received = new Promise((resolve) => {
        let count = 0;
        socket.on("data", (d: Buffer) => {
          if (count === 0) socket.end("HTTP/1.1 413 Payload Too Large\r\nconnection: close\r\n\r\n");
          count += d.length;
        });
        socket.on("end", () => resolve(count));
      });
    });
    await new Promise<void>((r) => raw.listen(0, "127.0.0.1", () => r()));
    try {
      const bytes = 8 * 1024 * 1024;
      const answer = await rawPost((raw.address() as AddressInfo).port, {
        bytes,
        readAfter: 0,
        halfOpen: true,
      });
      expect(answer).toMatchObject({ status: 413, sent: bytes, ended: true, closed: true });
      expect(answer.error).toBeUndefined();
      expect(await received).toBeGreaterThan(bytes);
    } finally {
      raw.close();
    }
  });
});
