// Peers the Discord fake cannot play, served raw over HTTP upgrade (RFC 6455) at the stored resume
// URL: one that sends a frame that is not JSON, which is logged and skipped; one that sends a frame
// the client must refuse (a text frame that is not UTF-8, section 8.1), after which ws fails the
// connection (error, then close) and the connection must connect again rather than stay silent for
// good; one that never answers the upgrade, whose sockets the connection leaves without calling that
// a failed connect; and a zombie that never answers the close handshake, which the connection cuts
// off itself instead of waiting for ws's 30 s close timeout.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_KEY } from "../src/connection.js";
import { logged, type Rigged, startCalmRig, stopRig, storedSession } from "./rig.js";

let r: Rigged | undefined;
let server: Server | undefined;
/** Upgraded sockets leave the HTTP server's books: closing the server waits for them. */
let upgraded: Socket[] = [];
afterEach(async () => {
  await stopRig(r);
  r = undefined;
  for (const socket of upgraded) socket.destroy();
  upgraded = [];
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

/** An unmasked text frame (server to client) of up to 125 bytes. */
const textFrame = (payload: Buffer) => Buffer.concat([Buffer.from([0x81, payload.length]), payload]);

/** A WebSocket endpoint that accepts every upgrade (or, `upgrade` false, leaves it unanswered) and hands its TCP socket to `peer`. */
async function rawEndpoint(
  peer: (socket: Socket) => void,
  upgrade = true,
): Promise<{ url: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const s = createServer();
  server = s;
  s.on("upgrade", (req, socket: Socket) => {
    sockets.push(socket);
    upgraded.push(socket);
    socket.on("error", () => {});
    if (!upgrade) return peer(socket);
    const accept = createHash("sha1")
      .update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    peer(socket);
  });
  await new Promise<void>((done) => s.listen(0, "127.0.0.1", done));
  return { url: `ws://127.0.0.1:${(s.address() as AddressInfo).port}`, sockets };
}

/** A READY session stored, the gateway stopped, the stored resume URL pointed at `url`, started again. */
async function resumeAt(x: Rigged, url: string): Promise<void> {
  await eventually(async () => (await storedSession(x)) !== undefined, "the stored session");
  await x.rig.stop();
  const session = await storedSession(x);
  await x.rig.store.gatewayState.set("discord", SESSION_KEY, { ...session, resumeUrl: url });
  await x.rig.start();
}

describe("discord connection: peers that misbehave", () => {
  it("a frame the WebSocket protocol refuses closes the socket, and the connection connects again with a warning", async () => {
    r = await startCalmRig();
    const endpoint = await rawEndpoint((socket) => {
      socket.write(textFrame(Buffer.from([0xff])));
      // The client's close frame answered by ending the TCP connection, so its close completes at once.
      socket.on("data", () => socket.end());
    });
    await resumeAt(r, endpoint.url);
    await eventually(() => endpoint.sockets.length >= 2, "a second connection after the refused frame");
    expect(r.h.logs.find((l) => l.msg === "gateway connection closed; reconnecting")).toMatchObject({
      level: 40,
      resume: true,
    });
  });

  it("a socket the watchdog replaces, or stop leaves, while it is still opening is no failed connect: no retry warning", async () => {
    // watchdogMs 300: a socket that has said nothing for that long is replaced, an unanswered upgrade too.
    r = await startCalmRig({ watchdogMs: 300 });
    const x = r;
    // Takes the upgrade and never answers it: the socket stays opening until the connection leaves it.
    const endpoint = await rawEndpoint(() => {}, false);
    await resumeAt(x, endpoint.url);
    await eventually(() => endpoint.sockets.length >= 3, "two sockets replaced while opening");
    const replaced = endpoint.sockets.slice(0, 2);
    // Left sockets are cut off a second later: their opening fails then (the warning would come here).
    await eventually(
      () => replaced.every((s) => s.destroyed || s.readableEnded),
      "the replaced sockets cut off",
    );
    await x.rig.stop();
    const last = endpoint.sockets.at(-1) as Socket;
    await eventually(() => last.destroyed || last.readableEnded, "the last socket cut off after stop");
    expect(
      x.h.logs.filter((l) => l.msg === "no gateway frame within the watchdog period; reconnecting").length,
    ).toBeGreaterThanOrEqual(2);
    expect(x.h.logs.some((l) => l.msg === "could not connect to the gateway; retrying")).toBe(false);
  });

  it("a frame that is not JSON is logged as unreadable, and the frames after it are read", async () => {
    r = await startCalmRig();
    const hello = JSON.stringify({ op: 10, d: { heartbeat_interval: 2_000 }, s: null, t: null });
    let resumed = false;
    const endpoint = await rawEndpoint((socket) => {
      socket.write(textFrame(Buffer.from("not json")));
      socket.write(textFrame(Buffer.from(hello)));
      // The client's first frame after Hello is the Resume (op 6).
      socket.on("data", () => {
        resumed = true;
      });
    });
    await resumeAt(r, endpoint.url);
    const line = await logged(r, "unreadable gateway frame");
    expect(line).toMatchObject({ level: 40 });
    expect(line.err).toBeDefined();
    await eventually(() => resumed, "the Resume after Hello");
  });

  it("a peer that never answers the close handshake is cut off when the connection leaves it", async () => {
    r = await startCalmRig();
    const hello = JSON.stringify({ op: 10, d: { heartbeat_interval: 2_000 }, s: null, t: null });
    // Says Hello, then reads every frame (the Resume, the close) and answers none.
    const endpoint = await rawEndpoint((socket) => socket.write(textFrame(Buffer.from(hello))));
    let resumeSent = false;
    await resumeAt(r, endpoint.url);
    await eventually(() => endpoint.sockets.length === 1, "the connection");
    const socket = endpoint.sockets[0] as Socket;
    socket.on("data", () => {
      resumeSent = true;
    });
    await eventually(() => resumeSent, "the Resume");
    await r.rig.stop();
    // ws alone would wait 30 s for the peer's close frame; the bound here is 8 s.
    await eventually(() => socket.destroyed || socket.readableEnded, "the TCP connection closed");
  });
});
