// What an instance of several costs the others (#45.3): a message recorded on an instance that does
// not hold its thread makes only the holder look (the others do not each try a lock it holds), and
// replies committed on an instance that does not send are announced once per window, not once each.
import { afterEach, describe, expect, it, vi } from "vitest";
import pino from "pino";
import { type ClusterMessage, type Coordination, GatewayRegistry } from "../src/index.js";
import { coalesced, sessionSender } from "../src/session-sender.js";
import type { Previews } from "../src/streaming.js";
import { createMemoryCluster, createMemorySessionStore } from "../src/testing/index.js";
import { captureLogs } from "./helpers.js";
import { clusterRigs, countingLocks, rig, type Rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

afterEach(() => {
  vi.useRealTimers();
});

/** Three instances over one store, each counting the thread locks it asks for and what it announces. */
async function three(threadHoldMs?: number) {
  const dir = freshDir();
  const cluster = createMemoryCluster();
  const asked = { a: [] as string[], b: [] as string[], c: [] as string[] };
  const published: ClusterMessage[] = [];
  const counted = (id: "a" | "b" | "c"): Coordination => {
    const inner = countingLocks(cluster.instance(id), asked[id]);
    return {
      ...inner,
      publish: (m) => {
        published.push(m);
        return inner.publish(m);
      },
    };
  };
  const common = { dir, sweepMs: 60_000, ...(threadHoldMs !== undefined ? { threadHoldMs } : {}) };
  const a = await rig({ ...common, coordination: counted("a") });
  const b = await rig({ ...common, coordination: counted("b"), store: a.db });
  const c = await rig({ ...common, coordination: counted("c"), store: a.db });
  rigs.push(a, b, c);
  return { a, b, c, asked, published, cluster };
}

let sent = 0;
const say = (r: Rig, thread: string, text: string) => r.gateway.inject({ thread, text, id: `m${++sent}` });

describe("three instances over one store", () => {
  it("a message recorded where its thread is not held is announced to the holder alone: no other instance asks for the lock", async () => {
    const { a, b, c, asked, published } = await three();
    await say(a, "T", "use wait_gate first");
    await until(() => a.gates.calls.length === 1, "a's turn at its gate");
    await say(b, "T", "behind it");
    await until(() => a.session.snapshot("mock", "T").queued === 1, "queued on the holder");
    expect(published.filter((m) => m.kind === "thread")).toEqual([
      { kind: "thread", gateway: "mock", thread: "T", held: true, id: expect.any(Number) },
    ]);
    // b tried once (its own claim); c, which neither received nor holds it, never.
    expect(asked.b).toEqual(["gw:mock:T"]);
    expect(asked.c).toEqual([]);
    a.gates.openAll();
    await until(() => a.gateway.textsTo("T").length === 2, "both answered");
    expect(b.runs.starts.length + c.runs.starts.length).toBe(0);
  });
});

describe("a thread after its turn", () => {
  it("stays with the instance that ran it for the hold: its next message, recorded on another instance, runs there without a new lock", async () => {
    const { a, b, c, asked } = await three(60_000);
    await say(a, "T", "first");
    await until(() => a.gateway.textsTo("T").length === 1, "the first reply");
    await a.session.idle();
    await say(b, "T", "second");
    await until(() => a.gateway.textsTo("T").length === 2, "the second reply");
    expect(a.runs.starts.map((s) => s.input)).toEqual(["first", "second"]);
    expect(b.runs.starts.length + c.runs.starts.length).toBe(0);
    expect(asked.a).toEqual(["gw:mock:T"]);
  });
});

describe("taking a thread", () => {
  it("looks up no suspended run for a thread with no turn running (a new thread): its records are the one read before its turn", async () => {
    const { a } = await three();
    const looked: string[] = [];
    const get = a.db.runStore.get.bind(a.db.runStore);
    a.db.runStore.get = (threadId) => {
      looked.push(threadId);
      return get(threadId);
    };
    await say(a, "N", "new thread");
    await until(() => a.gateway.textsTo("N").length === 1, "the reply");
    expect(looked).toEqual([]);
  });
});

describe("announcing replies to the sending instance", () => {
  it("sends the first at once and every later one of the same window as one at its end", () => {
    vi.useFakeTimers();
    const send = vi.fn();
    const wake = coalesced(send, 100);
    wake();
    expect(send).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) wake();
    expect(send).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(100);
    expect(send).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(1000);
    expect(send).toHaveBeenCalledTimes(2);
    wake();
    expect(send).toHaveBeenCalledTimes(3);
  });

  it("a wake announced while the link is down is logged, not left as a rejection that ends the process", async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      const logs = captureLogs();
      const logger = pino({ level: "info" }, logs.stream);
      const down: Coordination = {
        ...createMemoryCluster().instance("a"),
        publish: async () => {
          throw new Error("the PostgreSQL link is not connected");
        },
      };
      const sender = sessionSender({
        previews: undefined as unknown as Previews,
        store: createMemorySessionStore(),
        registry: new GatewayRegistry(),
        loggerFor: () => logger,
        logger,
        outbox: undefined,
        coordination: down,
        observer: undefined,
        onCredentials: () => {},
        platformCallSucceeded: () => {},
      });
      sender.wake(); // not running here: passed on to whoever sends
      await until(
        () => logs.lines().some((l) => l.msg === "could not publish to the other instances"),
        "the warning",
      );
      await new Promise((r) => setImmediate(r));
      expect(rejections).toEqual([]);
      expect(logs.lines().find((l) => l.kind === "outbox")).toMatchObject({
        level: 40,
        err: "the PostgreSQL link is not connected",
      });
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });
});
