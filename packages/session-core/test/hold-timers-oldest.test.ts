// HoldTimers (hold-timers.ts) when a kept thread leaves the line early: the oldest let go at once for
// a thread waiting for room (fireOldest, Ownership's #letGoIdleNow), or a let-go cancelled. Found by
// a mutation run (#45): no test of this package called fireOldest on its own, and cancelling the
// oldest hold could leave the timer armed for its group's end.
import { afterEach, describe, expect, it, vi } from "vitest";
import { timers } from "./hold-timers-rig.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("a kept thread let go before its hold ends", () => {
  it("fireOldest lets the oldest go at once, only once, and the others at their own hold's end", async () => {
    const { t, keep, fired } = timers();
    keep("A");
    await vi.advanceTimersByTimeAsync(100);
    keep("B");
    expect(t.fireOldest()).toBe(true);
    expect(fired).toEqual(["A"]);
    // A's hold would have ended at 1,000 ms: its let-go is not run again.
    await vi.advanceTimersByTimeAsync(999);
    expect(fired).toEqual(["A"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(["A", "B"]);
  });

  it("fireOldest with no thread kept lets nothing go and says so", () => {
    const { t, fired } = timers();
    expect(t.fireOldest()).toBe(false);
    expect(fired).toEqual([]);
  });

  it("cancelling the oldest hold gathers the group again from the next one's end", async () => {
    const { t, keep, fired } = timers();
    keep("A"); // ends at 1,000 ms
    await vi.advanceTimersByTimeAsync(200);
    keep("B"); // 1,200: within 250 ms of A's end
    await vi.advanceTimersByTimeAsync(200);
    keep("C"); // 1,400: not within A's 250 ms, within B's
    t.cancel("A");
    // The group is now B's: it goes with C at 1,400, not B alone at 1,200 as A's group had it.
    await vi.advanceTimersByTimeAsync(999);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(["B", "C"]);
  });
});
