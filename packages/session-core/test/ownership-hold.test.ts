// Threads kept after their last work (several instances, `threadHoldMs`) are let go in groups
// (hold-timers.ts): holds that end close together end in one timer tick, so their give-backs share
// a statement on PostgreSQL (the link's lock batch groups the requests of one tick), where a timer
// per thread made two statements each (a queued-record read and a give-back).
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GatewayRegistry } from "../src/index.js";
import { HoldTimers, SUSPENDED_HOLD_MS } from "../src/hold-timers.js";
import { Ownership } from "../src/ownership.js";
import type { SessionParts } from "../src/parts.js";
import { createMemoryCluster, createMockGateway } from "../src/testing/index.js";
import { gatewayThreadId, Threads } from "../src/threads.js";

afterEach(() => {
  vi.useRealTimers();
});

/** Instance "a" of a memory cluster holding threads for `holdMs` after their work; its give-backs with the clock's time. */
function owner(holdMs: number) {
  const inner = createMemoryCluster().instance("a");
  const given: { key: string; at: number }[] = [];
  const coordination = {
    ...inner,
    releaseThread: (key: string) => {
      given.push({ key, at: Date.now() });
      return inner.releaseThread(key);
    },
  };
  const registry = new GatewayRegistry();
  registry.register(createMockGateway({}));
  const threads = new Threads();
  const parts = {
    // Nothing queued for any thread: the let-go's last look finds nothing.
    store: { inbox: { queued: async () => [] } },
    registry,
    threads,
    logger: pino({ level: "silent" }),
    runs: { release() {}, cancel: () => true },
    track: (work: Promise<unknown>) => void work.catch(() => undefined),
    stopping: () => false,
  } as unknown as SessionParts;
  const own = new Ownership(
    parts,
    coordination,
    { adopt: async () => {}, onMessage: async () => {} },
    { holdMs },
  );
  return { own, threads, given };
}

describe("threads kept after their last work", () => {
  it("are let go together when their holds end close together, each after its whole hold", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(100_010);
    const o = owner(1000);
    const settledAt = new Map<string, number>();
    for (const t of ["A", "B", "C"]) {
      expect(await o.own.claim("mock", t)).toBe(true);
      settledAt.set(gatewayThreadId("mock", t), Date.now());
      await o.own.settle(o.threads.get("mock", t));
      await vi.advanceTimersByTimeAsync(50); // the next thread's turn ends 50 ms later
    }
    expect(o.given).toEqual([]);
    await vi.advanceTimersByTimeAsync(1500);
    expect(o.given.map((g) => g.key).sort()).toEqual([...settledAt.keys()].sort());
    // One tick gave all three back (a timer each: at 101,010, 101,060 and 101,110).
    expect(new Set(o.given.map((g) => g.at)).size).toBe(1);
    for (const g of o.given) expect(g.at - (settledAt.get(g.key) ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(o.own.holdsAny).toBe(false);
  });

  it("a thread with work again before its hold ends is not let go; the others of its tick are", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(200_000);
    const fired: string[] = [];
    const timers = new HoldTimers(1000, 250);
    timers.keep("A", () => fired.push("A"));
    timers.keep("B", () => fired.push("B"));
    await vi.advanceTimersByTimeAsync(500);
    timers.cancel("A");
    timers.keep("C", () => fired.push("C"));
    await vi.advanceTimersByTimeAsync(500);
    expect(fired).toEqual(["B"]);
    expect(timers.size).toBe(1);
    // The oldest kept thread goes at once when asked (another thread waits for room).
    expect(timers.fireOldest()).toBe(true);
    expect(fired).toEqual(["B", "C"]);
    expect(timers.fireOldest()).toBe(false);
    await vi.advanceTimersByTimeAsync(2000);
    expect(fired).toEqual(["B", "C"]);
  });

  it("a suspended thread is let go after a second although the hold is longer; an idle one is kept the whole hold", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(300_000);
    const o = owner(5000);
    for (const t of ["idle", "waiting"]) expect(await o.own.claim("mock", t)).toBe(true);
    // "waiting" suspended on an approval: its decision may reach another instance, which tries it for 2 s.
    o.threads.get("mock", "waiting").active = {
      inboxId: 1,
      phase: "suspended",
      origin: { gateway: "mock", thread: "waiting" },
      steered: [],
      committed: false,
    };
    for (const t of ["idle", "waiting"]) await o.own.settle(o.threads.get("mock", t));
    // The suspended hold and the let-go gathering (500 ms) are over.
    await vi.advanceTimersByTimeAsync(SUSPENDED_HOLD_MS + 500);
    expect(o.given.map((g) => g.key)).toEqual([gatewayThreadId("mock", "waiting")]);
    expect(o.given[0]?.at).toBeLessThanOrEqual(300_000 + SUSPENDED_HOLD_MS + 500);
    await vi.advanceTimersByTimeAsync(5000 - SUSPENDED_HOLD_MS - 500 - 1);
    expect(o.given).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(o.given.map((g) => g.key)).toEqual([
      gatewayThreadId("mock", "waiting"),
      gatewayThreadId("mock", "idle"),
    ]);
    expect(o.own.holdsAny).toBe(false);
  });

  it("a thread taken back soon after its let-go is kept twice as long, up to 4x; one away longer than its hold starts at 1x again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(400_000);
    const o = owner(1000);
    const id = gatewayThreadId("mock", "T");
    /** Takes T, ends its work, and says how long after that it was given back. */
    const heldFor = async () => {
      const before = o.given.length;
      expect(await o.own.claim("mock", "T")).toBe(true);
      const settled = Date.now();
      await o.own.settle(o.threads.get("mock", "T"));
      while (o.given.length === before) await vi.advanceTimersByTimeAsync(100);
      expect(o.given.at(-1)?.key).toBe(id);
      return (o.given.at(-1)?.at ?? 0) - settled;
    };
    expect(await heldFor()).toBe(1000);
    // Its next message 300 ms after the let-go (1.3 s after its work): the hold was too short for it.
    await vi.advanceTimersByTimeAsync(300);
    expect(await heldFor()).toBe(2000);
    await vi.advanceTimersByTimeAsync(1900);
    expect(await heldFor()).toBe(4000);
    await vi.advanceTimersByTimeAsync(100);
    expect(await heldFor()).toBe(4000);
    // Away longer than its 4 s hold: back to 1 s.
    await vi.advanceTimersByTimeAsync(4000);
    expect(await heldFor()).toBe(1000);
    // Away longer than its hold at 1 s (1.2 s): still 1 s.
    await vi.advanceTimersByTimeAsync(1200);
    expect(await heldFor()).toBe(1000);
  });
});
