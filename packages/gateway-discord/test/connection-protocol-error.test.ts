// A socket that fails after it opened: the server sends a frame RFC 6455 makes the client refuse
// (a text frame that is not UTF-8, section 8.1). ws fails the connection (error, then close); the
// connection must treat that close like any other and connect again, not stay silent for good.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_KEY } from "../src/connection.js";
import { type Rigged, startCalmRig, stopRig, storedSession } from "./rig.js";

let r: Rigged | undefined;
let server: Server | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

/** A WebSocket endpoint that accepts each upgrade, then sends one text frame whose byte is not UTF-8. */
async function badFrameEndpoint(): Promise<{ url: string; upgrades: () => number }> {
  let upgrades = 0;
  const s = createServer();
  server = s;
  s.on("upgrade", (req, socket) => {
    upgrades += 1;
    socket.on("error", () => {});
    const accept = createHash("sha1")
      .update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket.write(Buffer.from([0x81, 0x01, 0xff]));
    // The client's close frame answered by ending the TCP connection, so its close completes at once.
    socket.on("data", () => socket.end());
  });
  await new Promise<void>((done) => s.listen(0, "127.0.0.1", done));
  return { url: `ws://127.0.0.1:${(s.address() as AddressInfo).port}`, upgrades: () => upgrades };
}

describe("discord connection: a socket that fails after it opened", () => {
  it("a frame the WebSocket protocol refuses closes the socket, and the connection connects again with a warning", async () => {
    r = await startCalmRig();
    const x = r;
    await eventually(async () => (await storedSession(x)) !== undefined, "the stored session");
    await x.rig.stop();
    const endpoint = await badFrameEndpoint();
    const session = await storedSession(x);
    await x.rig.store.gatewayState.set("discord", SESSION_KEY, { ...session, resumeUrl: endpoint.url });
    await x.rig.start();
    await eventually(() => endpoint.upgrades() >= 2, "a second connection after the refused frame");
    expect(x.h.logs.find((l) => l.msg === "gateway connection closed; reconnecting")).toMatchObject({
      level: 40,
      resume: true,
    });
  });
});
