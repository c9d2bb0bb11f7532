// listenLocal, the HTTP server every fake stands on: an idle keep-alive connection stays open until
// its client closes it (Node's own idle timeout closed it under a client that still counted it
// fresh: ECONNRESET after a stalled loop), and close() still closes such a connection and ends.
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeServer, listenLocal } from "../src/index.js";

let fake: FakeServer | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  socket?.destroy();
  socket = undefined;
  await fake?.close();
  fake = undefined;
});

/** A bare keep-alive connection to `port` that sends GETs and counts the answers. */
function keptAlive(port: number) {
  const s = connect(port, "127.0.0.1");
  socket = s;
  let text = "";
  s.setEncoding("utf8").on("data", (d: string) => {
    text += d;
  });
  const answers = () => text.split("HTTP/1.1 200").length - 1;
  /** Resolves once `n` answers arrived or the connection closed (whichever first). */
  const answered = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (answers() < n && !s.closed) return;
        s.off("data", check).off("close", check);
        resolve();
      };
      s.on("data", check).on("close", check);
      check();
    });
  return {
    ask: () => s.write("GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"),
    answers,
    answered,
    closed: () => s.closed,
    whenClosed: () =>
      new Promise<void>((resolve) => (s.closed ? resolve() : s.once("close", () => resolve()))),
  };
}

describe("listenLocal", () => {
  it("keeps an idle keep-alive connection open for its client: a request 6.5 s after the last, on the same connection, is answered", async () => {
    fake = await listenLocal((_req, res) => res.end("ok"));
    const c = keptAlive(fake.port);
    c.ask();
    await c.answered(1);
    expect(c.answers()).toBe(1);
    // Past Node's default idle timeout (5 s, +1 s): nothing happens to wait on, the point is that
    // the connection is not closed meanwhile.
    await new Promise((r) => setTimeout(r, 6_500));
    expect(c.closed()).toBe(false);
    c.ask();
    await c.answered(2);
    expect(c.answers()).toBe(2);
  });

  it("close() closes an idle keep-alive connection and ends", async () => {
    fake = await listenLocal((_req, res) => res.end("ok"));
    const c = keptAlive(fake.port);
    c.ask();
    await c.answered(1);
    await fake.close();
    fake = undefined;
    await c.whenClosed();
    expect(c.closed()).toBe(true);
  });
});
