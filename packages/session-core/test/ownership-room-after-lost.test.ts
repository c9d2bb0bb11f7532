// A kept thread whose lock is lost (ownership.ts lost()) is no longer kept: its pending let-go is
// dropped with it. Left pending, it would be the oldest kept thread when another thread next waits
// for room, and its let-go, finding the thread not held here, would make no room and pass none on:
// the waiting thread would wait for the next hold to end (10 minutes here).
import { describe, expect, it } from "vitest";
import { gatewayThreadId } from "../src/threads.js";
import { held, owner } from "./ownership-rig.js";
import { until } from "./session-harness.js";

describe("room made under the cap after a kept thread's lock was lost", () => {
  it("goes to the next thread kept here, not to the kept thread whose lock was lost", async () => {
    const o = owner(2);
    // A then B worked and are kept (A the oldest); the cap is full.
    await o.own.poke("mock", "A");
    await o.own.poke("mock", "B");
    expect(held(o)).toEqual(["gw:mock:A", "gw:mock:B"]);
    // A's lock is lost (another instance may take it): its room is free again, and C takes it.
    o.own.lost([gatewayThreadId("mock", "A")]);
    o.queued.set("C", [o.record(1, "C", "c1")]);
    await until(async () => await o.own.claim("mock", "C"), "C claimed in A's room");
    await o.own.poke("mock", "C");
    expect(o.taken).toEqual(["C:c1"]);
    // D arrives with the cap full (B kept, C running): B, the only thread kept here, makes room.
    o.queued.set("D", [o.record(2, "D", "d1")]);
    expect(await o.own.claim("mock", "D")).toBe(false);
    await until(() => o.taken.includes("D:d1"), "D taken once B is let go");
    expect(o.taken).toEqual(["C:c1", "D:d1"]);
  });
});
