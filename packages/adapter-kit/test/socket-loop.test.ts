// SocketLoop against a real `ws` server on 127.0.0.1: a tiny protocol (an `auth` frame answered
// `ok` or `fail`, then `{ seq, text }` events, a resume from `?from=<seq>` resending what came
// after) so the loop's own behaviour shows: reconnect after a drop, refused credentials, an event
// not recorded read again, a silent server dropped by the ping, stop. Every wait is bounded.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import {
  type GatewayContext,
  type GatewayScheduler,
  PlatformCallError,
  SocketLoop,
  type SocketLoopOptions,
} from "../src/index.js";

interface Ev {
  seq: number;
  text: string;
}

/** The platform: events it holds (numbered from 1), the sockets it accepted, the auth it wants. */
async function platform(token = "good") {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await once(wss, "listening");
  const p = {
    events: [] as Ev[],
    sockets: [] as WebSocket[],
    urls: [] as string[],
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/`,
    /** Holds a new event and sends it on the open sockets. */
    push(text: string): void {
      const ev = { seq: p.events.length + 1, text };
      p.events.push(ev);
      for (const ws of p.sockets) if (ws.readyState === 1) ws.send(JSON.stringify(ev));
    },
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      return new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
  wss.on("connection", (ws, req) => {
    p.urls.push(req.url ?? "");
    const from = Number(new URL(req.url ?? "/", "ws://x").searchParams.get("from") ?? 1);
    ws.once("message", (raw) => {
      const auth = JSON.parse(String(raw)) as { auth?: string };
      if (auth.auth !== token) {
        ws.send(JSON.stringify({ status: "fail" }));
        return;
      }
      p.sockets.push(ws);
      ws.send(JSON.stringify({ status: "ok" }));
      for (const ev of p.events.filter((e) => e.seq >= from)) ws.send(JSON.stringify(ev));
    });
  });
  return p;
}

/** A scheduler like the engine's: one timer per named task, its signal aborted by cancel. */
function scheduler(): GatewayScheduler & { stopAll(): void } {
  const tasks = new Map<string, { timer?: NodeJS.Timeout; abort: AbortController }>();
  const s = {
    every: () => {},
    list: () => [],
    cancel(name: string) {
      const t = tasks.get(name);
      if (!t) return false;
      clearTimeout(t.timer);
      t.abort.abort();
      tasks.delete(name);
      return true;
    },
    schedule(name: string, delay: number, task: (signal: AbortSignal) => unknown) {
      s.cancel(name);
      const t: { timer?: NodeJS.Timeout; abort: AbortController } = { abort: new AbortController() };
      tasks.set(name, t);
      const run = (ms: number) => {
        t.timer = setTimeout(async () => {
          const next = (await task(t.abort.signal)) as number | null;
          if (next !== null && tasks.get(name) === t) run(next);
        }, ms);
      };
      run(delay);
    },
    stopAll() {
      for (const name of [...tasks.keys()]) s.cancel(name);
    },
  };
  return s;
}

function rig(p: Awaited<ReturnType<typeof platform>>, over: Partial<SocketLoopOptions<Ev>> = {}) {
  const logs: { level: number; msg: string }[] = [];
  const r = {
    handled: [] as string[],
    reconnected: 0,
    rejected: [] as { envVar: string; detail: string }[],
    position: 1,
    logs,
    sched: scheduler(),
  };
  const ctx = {
    logger: pino({ level: "debug" }, { write: (l: string) => void logs.push(JSON.parse(l)) }),
    scheduler: r.sched,
    credentialsRejected: (envVar: string, detail: string) => void r.rejected.push({ envVar, detail }),
    reconnected: () => {
      r.reconnected += 1;
    },
  } as unknown as GatewayContext;
  const loop = new SocketLoop<Ev>({
    ctx,
    connection: "the test socket",
    envVar: "TEST_TOKEN",
    backoff: { baseMs: 10, maxMs: 50 },
    url: () => `${p.url}?from=${r.position}`,
    opened: (send) => send({ auth: "good" }),
    read: (f) => {
      const frame = f as { status?: string } & Partial<Ev>;
      if (frame.status === "ok") return { up: true };
      if (frame.status === "fail") return { rejected: "the auth frame was refused" };
      return typeof frame.seq === "number" ? { event: frame as Ev } : undefined;
    },
    handle: async (ev) => {
      r.handled.push(ev.text);
      r.position = ev.seq + 1;
    },
    ...over,
  });
  cleanups.push(async () => {
    await loop.stop();
    r.sched.stopAll();
  });
  return { r, loop };
}

async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("SocketLoop", () => {
  it("authenticates on open, then hands the events to handle in their order", async () => {
    const p = await platform();
    cleanups.push(p.close);
    const { r, loop } = rig(p);
    loop.start();
    await until("connected", () => p.sockets.length === 1);
    for (const t of ["one", "two", "three"]) p.push(t);
    await until("three events", () => r.handled.length === 3);
    expect(r.handled).toEqual(["one", "two", "three"]);
    expect(r.reconnected).toBe(0);
  });

  it("a dropped connection is opened again with the adapter's resume URL and counted as a reconnect once up", async () => {
    const p = await platform();
    cleanups.push(p.close);
    const { r, loop } = rig(p);
    loop.start();
    await until("connected", () => p.sockets.length === 1);
    p.push("before");
    await until("first event", () => r.handled.length === 1);
    p.sockets[0]?.terminate();
    p.events.push({ seq: 2, text: "while down" });
    await until("second connection", () => p.sockets.length === 2);
    await until("missed event", () => r.handled.length === 2);
    expect(r.handled).toEqual(["before", "while down"]);
    expect(p.urls).toEqual(["/?from=1", "/?from=2"]);
    expect(r.reconnected).toBe(1);
    expect(loop.reconnects).toBe(1);
  });

  it("a refused authentication stops the loop naming the variable, with no further connection", async () => {
    const p = await platform("another");
    cleanups.push(p.close);
    const { r, loop } = rig(p);
    loop.start();
    await until("rejected", () => r.rejected.length === 1);
    expect(r.rejected[0]).toEqual({ envVar: "TEST_TOKEN", detail: "the auth frame was refused" });
    // Bounded look for a retry that must not come: the backoff here is at most 50 ms.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(p.urls).toHaveLength(1);
  });

  it("a 401 from the call before connecting stops the loop without opening a socket", async () => {
    const p = await platform();
    cleanups.push(p.close);
    let calls = 0;
    const { r, loop } = rig(p, {
      url: () => {
        calls += 1;
        throw new PlatformCallError("test", "users/me", { status: 401 });
      },
    });
    loop.start();
    await until("rejected", () => r.rejected.length === 1);
    expect(r.rejected[0]?.envVar).toBe("TEST_TOKEN");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls).toBe(1);
    expect(p.urls).toHaveLength(0);
  });

  it("any other failure before connecting retries after the backoff", async () => {
    const p = await platform();
    cleanups.push(p.close);
    let calls = 0;
    const { r, loop } = rig(p, {
      url: () => {
        calls += 1;
        if (calls < 3) throw new PlatformCallError("test", "users/me", { network: true });
        return p.url;
      },
    });
    loop.start();
    await until("connected after two failures", () => p.sockets.length === 1);
    expect(calls).toBe(3);
    expect(r.logs.filter((l) => l.msg === "could not connect the test socket; retrying")).toHaveLength(2);
  });

  it("an event not recorded drops the socket and is read again from the resume, ahead of later ones", async () => {
    const p = await platform();
    cleanups.push(p.close);
    let failOnce = true;
    const { r, loop } = rig(p, {
      handle: async (ev) => {
        if (ev.text === "flaky" && failOnce) {
          failOnce = false;
          throw new Error("not recorded");
        }
        r.handled.push(ev.text);
        r.position = ev.seq + 1;
      },
    });
    loop.start();
    await until("connected", () => p.sockets.length === 1);
    p.push("flaky");
    await until("flaky recorded on the second connection", () => r.handled.length === 1);
    p.push("after");
    await until("after", () => r.handled.length === 2);
    expect(r.handled).toEqual(["flaky", "after"]);
    expect(p.urls).toEqual(["/?from=1", "/?from=1"]);
  });

  it("a server that stops answering pings is dropped and connected to again", async () => {
    const p = await platform();
    cleanups.push(p.close);
    const { r, loop } = rig(p, { pingEveryMs: 50 });
    loop.start();
    await until("connected", () => p.sockets.length === 1);
    // The server's side stops reading: no pong comes back, nothing else arrives.
    (p.sockets[0] as unknown as { _socket: { pause(): void } })._socket.pause();
    await until("second connection", () => p.sockets.length === 2);
    expect(r.logs.some((l) => l.msg === "the test socket did not answer a ping; reconnecting")).toBe(true);
  });

  it("stop closes the socket and nothing connects after it", async () => {
    const p = await platform();
    cleanups.push(p.close);
    const { loop } = rig(p);
    loop.start();
    await until("connected", () => p.sockets.length === 1);
    const closed = once(p.sockets[0] as WebSocket, "close");
    await loop.stop();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(p.urls).toHaveLength(1);
  });

  it("stop during the call before connecting aborts it and opens nothing", async () => {
    const p = await platform();
    cleanups.push(p.close);
    let aborted = false;
    const { loop } = rig(p, {
      url: (signal) =>
        new Promise<string>((resolve) =>
          signal.addEventListener("abort", () => {
            aborted = true;
            resolve(p.url);
          }),
        ),
    });
    loop.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await loop.stop();
    await until("the call aborted", () => aborted);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(p.urls).toHaveLength(0);
  });
});
