// Room under the cap on held threads (several instances, `threadHoldMs`): a thread refused for want
// of room lets the oldest kept thread go (HoldTimers.fireOldest). The kept thread picked may be
// taking new work at that moment (its change runs inside its lock, and its pending let-go is only
// cancelled when that change settles): it is not let go then, and the room goes to the next kept one.
import { afterEach, describe, expect, it, vi } from "vitest";
import { held, owner } from "./ownership-rig.js";
import { until } from "./session-harness.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("room made under the cap by letting a kept thread go", () => {
  it("goes to the next kept thread when the oldest kept one is taking new work at that moment", async () => {
    const o = owner(2);
    // A then B worked and are kept (A the oldest); the cap is full.
    await o.own.poke("mock", "A");
    await o.own.poke("mock", "B");
    expect(held(o)).toEqual(["gw:mock:A", "gw:mock:B"]);
    // A gets a message: its change reads the store (slowly) before its turn starts.
    let readDone = () => {};
    o.slow.set("A", new Promise<void>((r) => (readDone = r)));
    o.queued.set("A", [o.record(1, "A", "a1")]);
    const working = o.own.poke("mock", "A");
    // C arrives meanwhile: no room, so the oldest kept thread (A) is asked to go.
    o.queued.set("C", [o.record(2, "C", "c1")]);
    expect(await o.own.claim("mock", "C")).toBe(false);
    readDone();
    await working;
    expect(o.taken).toEqual(["A:a1"]);
    // A runs its turn and stays; B, idle, made the room and C runs.
    await until(() => o.taken.includes("C:c1"), "C taken once B is let go");
    expect(held(o)).toEqual(["gw:mock:A", "gw:mock:C"]);
    // A, found running when asked to go, was not read again for a last look.
    expect(o.reads.filter((t) => t === "A")).toHaveLength(2);
  });

  it("goes to the next kept thread when the oldest kept one's last look finds a message recorded elsewhere", async () => {
    const o = owner(2);
    await o.own.poke("mock", "A");
    await o.own.poke("mock", "B");
    // Recorded for A by another instance, its announcement not here yet.
    o.queued.set("A", [o.record(1, "A", "a1")]);
    o.queued.set("C", [o.record(2, "C", "c1")]);
    expect(await o.own.claim("mock", "C")).toBe(false);
    await until(() => o.taken.includes("C:c1"), "C taken once B is let go");
    expect(o.taken).toEqual(["A:a1", "C:c1"]);
    expect(held(o)).toEqual(["gw:mock:A", "gw:mock:C"]);
  });

  it("lets no other kept thread go early when a kept thread's hold ends as it takes work and nothing waits for room", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(1_000_000);
    const o = owner(3, 1000);
    await o.own.poke("mock", "A");
    await vi.advanceTimersByTimeAsync(600);
    await o.own.poke("mock", "B");
    // A's hold ends while its change reads the store before its turn starts.
    await vi.advanceTimersByTimeAsync(350);
    let readDone = () => {};
    o.slow.set("A", new Promise<void>((r) => (readDone = r)));
    o.queued.set("A", [o.record(1, "A", "a1")]);
    const working = o.own.poke("mock", "A");
    await vi.advanceTimersByTimeAsync(100);
    readDone();
    await working;
    await vi.advanceTimersByTimeAsync(10);
    expect(o.taken).toEqual(["A:a1"]);
    // B is kept for its whole hold: still held 450 ms after A's ended.
    expect(held(o)).toEqual(["gw:mock:A", "gw:mock:B"]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(held(o)).toEqual(["gw:mock:A"]);
  });
});
