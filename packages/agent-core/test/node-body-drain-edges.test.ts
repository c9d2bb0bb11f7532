// drainPastLimit at its edges, over real HTTP on 127.0.0.1 and on plain streams: what it leaves
// alone (a request already read or gone, a second drain, a connection nobody asked to close), the
// byte bound, and that it lets go of the stream (listeners, timer) when the body ends.
import { once } from "node:events";
import { Socket } from "node:net";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { drainPastLimit, readNodeBody } from "../src/index.js";
import { closeRig, open, serve } from "./node-http-rig.js";

const LIMIT = 1024;
const EVENTS = ["data", "end", "error", "close"] as const;
afterEach(async () => {
  vi.useRealTimers();
  await closeRig();
});

/** Reads from `socket` until `text` holds `count` complete HTTP answers (each ends with its body). */
async function answers(socket: Socket, count: number, bodyOf = "x"): Promise<string> {
  let text = "";
  socket.setEncoding("utf8");
  while (text.split(bodyOf).length - 1 < count) {
    const [piece] = (await once(socket, "data")) as [string];
    text += piece;
  }
  return text;
}

const post = (n: number) => `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${n}\r\n\r\n`;
const listeners = (stream: NodeJS.EventEmitter) => EVENTS.map((e) => stream.listenerCount(e));
/** One turn of the event loop: a stream's events of the last write or destroy have been emitted. */
const tick = () => new Promise<void>((r) => setImmediate(r));

describe("drainPastLimit leaves alone", () => {
  it("a request already read to its end, or already gone: its socket's destroySoon and listeners are untouched", async () => {
    const checks: { same: boolean; listeners: number[]; before: number[] }[] = [];
    let bothChecked!: () => void;
    const checked = new Promise<void>((r) => {
      bothChecked = r;
    });
    let goneEntered!: () => void;
    const goneReached = new Promise<void>((r) => {
      goneEntered = r;
    });
    const port = await serve((req, res) => {
      const check = () => {
        const before = listeners(req);
        const own = req.socket.destroySoon;
        drainPastLimit(req);
        checks.push({ same: req.socket.destroySoon === own, listeners: listeners(req), before });
        if (checks.length === 2) bothChecked();
      };
      if (req.url === "/read") {
        void readNodeBody(req, LIMIT).then(() => {
          check();
          res.end("x");
        });
      } else {
        req.once("error", () => {});
        req.once("close", () => setImmediate(check));
        goneEntered();
      }
    });
    const reader = await open(port);
    reader.write(`${post(3).replace("POST /", "POST /read")}abc`);
    await answers(reader, 1);
    const gone = await open(port);
    gone.write(`${post(500).replace("POST /", "POST /gone")}abc`);
    await goneReached;
    gone.destroy();
    await checked;
    for (const check of checks) {
      expect(check.same).toBe(true);
      expect(check.listeners).toEqual(check.before);
    }
  });

  it("a second drain of the same request: the socket's own destroySoon is back once the body ends", async () => {
    const own: Socket[] = [];
    const lingering = function (this: Socket) {
      own.push(this);
      Socket.prototype.destroySoon.call(this);
    };
    let socket: Socket | undefined;
    const port = await serve((req, res) => {
      socket = req.socket;
      req.socket.destroySoon = lingering;
      void readNodeBody(req, LIMIT).then((read) => {
        expect(read.ok).toBe(false);
        drainPastLimit(req); // the refusal's drain is already running
        res.writeHead(413, { connection: "close" }).end("x");
      });
    });
    const client = await open(port);
    client.write(post(256 * 1024));
    for (let sent = 0; sent < 256 * 1024; sent += 16 * 1024)
      if (!client.write(Buffer.alloc(16 * 1024, 0x61))) await once(client, "drain");
    const text = await answers(client, 1);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    await once(client, "close");
    expect(socket?.destroySoon).toBe(lingering);
    expect(own).toEqual([socket]);
  });

  it("a connection nobody asked to close: a drain that ends before the answer keeps it, timer cleared, listeners gone", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const after: number[][] = [];
    const port = await serve((req, res) => {
      if (req.method === "GET") return void res.end("x");
      const before = listeners(req);
      void readNodeBody(req, LIMIT, { bytes: 1024 * 1024, ms: 5_000 }).then(async (read) => {
        expect(read.ok).toBe(false);
        await once(req, "end");
        await new Promise((r) => setImmediate(r));
        after.push(listeners(req), before);
        // A keep-alive refusal: no Connection: close.
        res.writeHead(413).end("x");
      });
    });
    const client = await open(port);
    client.write(`${post(LIMIT + 100)}${"a".repeat(LIMIT + 100)}`);
    await answers(client, 1);
    // The bound's timer has nothing left to cut off: the same connection serves the next request.
    vi.advanceTimersByTime(10_000);
    client.write("GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
    const text = await answers(client, 1, "HTTP/1.1 200");
    expect(text).toContain("HTTP/1.1 200");
    expect(after[0]).toEqual(after[1]);
  });
});

describe("drainPastLimit's half-close", () => {
  it("sends the 413 and a FIN to a client still in the middle of its body, then reads the rest it sends", async () => {
    let rest!: (ended: boolean) => void;
    const drained = new Promise<boolean>((r) => {
      rest = r;
    });
    const port = await serve((req, res) => {
      req.once("close", () => rest(req.readableEnded));
      void readNodeBody(req, LIMIT).then(() => res.writeHead(413, { connection: "close" }).end("x"));
    });
    // Half-open: the client's side stays writable after the server's FIN.
    const client = await open(port, true);
    client.write(`${post(64 * 1024)}${"a".repeat(16 * 1024)}`);
    // Answer and end of the server's side, while 48 KiB of the body are still to come.
    let text = "";
    client.setEncoding("utf8");
    client.on("data", (d: string) => {
      text += d;
    });
    await once(client, "end");
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    client.end("a".repeat(48 * 1024));
    expect(await drained).toBe(true);
  });
});

describe("drainPastLimit's byte bound", () => {
  async function drainedTo(total: number, bound: number): Promise<boolean> {
    const ended = new Promise<boolean>((resolve) => {
      void serve((req, res) => {
        req.once("close", () => resolve(req.readableEnded));
        void readNodeBody(req, LIMIT, { bytes: bound, ms: 60_000 }).then(() => {
          res.writeHead(413, { connection: "close" }).end("x");
        });
      }).then(async (port) => {
        const client = await open(port);
        client.on("error", () => {});
        client.write(post(total));
        const piece = Buffer.alloc(16 * 1024, 0x61);
        for (let sent = 0; sent < total && !client.destroyed; sent += piece.length) {
          if (!client.write(piece.subarray(0, Math.min(piece.length, total - sent)))) {
            await Promise.race([once(client, "drain"), once(client, "close")]);
          }
        }
      });
    });
    return ended;
  }

  it("cuts off a client that keeps sending past it (the request never ends)", async () => {
    expect(await drainedTo(16 * 1024 * 1024, 64 * 1024)).toBe(false);
  });

  it("reads a body of exactly the bound to its end", async () => {
    expect(await drainedTo(64 * 1024, 64 * 1024)).toBe(true);
  });
});

describe("drainPastLimit on a plain stream (no socket)", () => {
  it("destroys a stream that sends past the byte bound, and lets go of it even when it emits no close", async () => {
    const stream = new PassThrough({ emitClose: false });
    drainPastLimit(stream, { bytes: 4, ms: 60_000 });
    stream.write("0123456789");
    await tick();
    expect(stream.destroyed).toBe(true);
    expect(stream.readableEnded).toBe(false);
    expect(listeners(stream)).toEqual([0, 0, 0, 0]);
  });

  it("reads a stream its owner had paused to its end", async () => {
    const stream = new PassThrough();
    stream.pause();
    stream.write("abc");
    drainPastLimit(stream, { bytes: 100, ms: 60_000 });
    stream.end();
    await once(stream, "end");
    expect(listeners(stream)).toEqual([0, 0, 0, 0]);
  });

  it("lets go at the end of a stream that never closes: not destroyed at the bound, no listener left", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const stream = new PassThrough({ autoDestroy: false, emitClose: false });
    drainPastLimit(stream, { bytes: 100, ms: 1_000 });
    stream.end("abc");
    await tick();
    vi.advanceTimersByTime(2_000);
    expect(stream.destroyed).toBe(false);
    expect(listeners(stream)).toEqual([0, 0, 0, 0]);
  });

  it("lets go of a stream that fails, or that someone else destroys", async () => {
    const failing = new PassThrough({ emitClose: false });
    drainPastLimit(failing, { bytes: 100, ms: 60_000 });
    failing.destroy(new Error("reset"));
    const destroyed = new PassThrough();
    drainPastLimit(destroyed, { bytes: 100, ms: 60_000 });
    destroyed.destroy();
    await tick();
    expect(listeners(failing)).toEqual([0, 0, 0, 0]);
    expect(listeners(destroyed)).toEqual([0, 0, 0, 0]);
  });
});
