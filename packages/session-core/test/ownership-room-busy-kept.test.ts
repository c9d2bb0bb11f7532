// A kept thread that takes new work is no longer kept (ownership.ts settle cancels its pending
// let-go): while it works, room asked for by another thread goes straight to the next kept thread.
// Left kept, the busy thread would be the oldest one asked to go, and its let-go would wait in its
// lock behind whatever change the thread is in (here a slow read of its messages) before passing
// the room on.
import { describe, expect, it } from "vitest";
import { held, owner } from "./ownership-rig.js";
import { until } from "./session-harness.js";

describe("room made under the cap while a once-kept thread works", () => {
  it("goes to the next kept thread at once, not after the working thread's change in progress", async () => {
    const o = owner(2);
    // A then B worked and are kept (A the oldest); the cap is full.
    await o.own.poke("mock", "A");
    await o.own.poke("mock", "B");
    // A takes a message: its turn runs, and it is no longer kept.
    o.queued.set("A", [o.record(1, "A", "a1")]);
    await o.own.poke("mock", "A");
    expect(o.taken).toEqual(["A:a1"]);
    // A's next change reads the store slowly.
    let readDone = () => {};
    o.slow.set("A", new Promise<void>((r) => (readDone = r)));
    const working = o.own.poke("mock", "A");
    // C arrives meanwhile: B, idle, makes the room while A's read still waits.
    o.queued.set("C", [o.record(2, "C", "c1")]);
    expect(await o.own.claim("mock", "C")).toBe(false);
    await until(() => o.taken.includes("C:c1"), "C taken once B is let go");
    expect(held(o)).toEqual(["gw:mock:A", "gw:mock:C"]);
    readDone();
    await working;
  });
});
