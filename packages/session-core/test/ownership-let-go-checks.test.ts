// What a kept thread's let-go (several instances, `threadHoldMs`) checks when it fires, inside the
// thread's lock: nothing once the session stops (its locks go with its connection), and nothing of a
// thread let go meanwhile (it is not held here: a message recorded for it is its next holder's).
import { afterEach, describe, expect, it, vi } from "vitest";
import { gatewayThreadId } from "../src/threads.js";
import { held, owner } from "./ownership-rig.js";
import { until } from "./session-harness.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("a kept thread's let-go", () => {
  it("neither reads nor gives back a kept thread whose hold ends once the session is stopping", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    let stopping = false;
    const o = owner(10, 1000, { stopping: () => stopping });
    await o.own.poke("mock", "A");
    expect(o.reads).toEqual(["A"]);
    stopping = true;
    await vi.advanceTimersByTimeAsync(2000);
    expect(o.reads).toEqual(["A"]);
    expect(held(o)).toEqual(["gw:mock:A"]);
  });

  it("takes no message of a kept thread let go before its let-go ran, and leaves no state for it", async () => {
    const o = owner(2);
    await o.own.poke("mock", "A");
    await o.own.poke("mock", "B");
    // A change of A in progress (it takes nothing) when C finds no room and asks A, the oldest kept, to go.
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const change = o.own.withHeld("mock", "A", () => gate);
    o.queued.set("C", [o.record(2, "C", "c1")]);
    expect(await o.own.claim("mock", "C")).toBe(false);
    // A's change settles first and lets A go at once (C waits); a message for A is recorded elsewhere
    // just after that last look, before the let-go C asked for runs.
    o.afterRead.set("A", () => o.queued.set("A", [o.record(3, "A", "a2")]));
    open();
    expect(await change).toBe("ran");
    await until(() => o.taken.includes("C:c1"), "C taken in the room A left");
    await until(() => o.threads.peek("mock", "A") === undefined, "A's state dropped");
    expect(o.taken).toEqual(["C:c1"]);
    expect(held(o)).toEqual(["gw:mock:B", "gw:mock:C"]);
    expect(o.reads.filter((t) => t === "A")).toHaveLength(2);
  });

  it("keeps the state of a kept thread lost while a turn ran, asked to go meanwhile: the turn winds down before the thread is taken again", async () => {
    const o = owner(1);
    await o.own.poke("mock", "A");
    // A turn of A runs (its change still in progress) when B finds no room and asks A to go.
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const change = o.own.withHeld("mock", "A", async (state) => {
      state.active = {
        inboxId: 1,
        phase: "running",
        origin: { gateway: "mock", thread: "A" },
        steered: [],
        committed: false,
      };
      await gate;
    });
    expect(await o.own.claim("mock", "B")).toBe(false);
    // The lock is lost meanwhile: the turn winds down here, uncommitted.
    o.own.lost([gatewayThreadId("mock", "A")]);
    open();
    await change;
    // The let-go B asked for runs after that change, in A's lock.
    await Promise.all(o.threads.pending());
    // Not taken again here while its lost turn still runs.
    expect(o.threads.peek("mock", "A")?.lost).toBe(true);
    expect(await o.own.claim("mock", "A")).toBe(false);
  });
});
