// HoldTimers (hold-timers.ts) on its own, on a fake clock: which kept thread is let go when, and that
// all of them share one timer (none left when nothing is kept). Found by a mutation run (#45): the
// tests through Ownership let threads go only in one tick, never kept one again or cancelled one
// while others waited.
import { afterEach, describe, expect, it, vi } from "vitest";
import { timers } from "./hold-timers-rig.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("threads kept after their last work, timed by HoldTimers", () => {
  it("a thread kept again is let go a whole hold after its last keep, after the threads kept since", async () => {
    const { keep, fired } = timers();
    keep("A");
    await vi.advanceTimersByTimeAsync(300);
    keep("B");
    await vi.advanceTimersByTimeAsync(300);
    keep("A"); // work again, then idle again: its hold starts over
    // B's hold ends at 1,300 ms, A's at 1,600: more than 250 ms later, so B goes alone.
    await vi.advanceTimersByTimeAsync(999);
    expect(fired).toEqual(["B"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(["B", "A"]);
  });

  it("holds ending within the gather time of the oldest's end go together at the last one's end; a later one on its own", async () => {
    const { keep, fired } = timers();
    keep("A");
    await vi.advanceTimersByTimeAsync(100);
    keep("B");
    await vi.advanceTimersByTimeAsync(150);
    keep("C"); // its hold ends 250 ms after A's: gathered
    await vi.advanceTimersByTimeAsync(1);
    keep("D"); // 251 ms after A's: not
    await vi.advanceTimersByTimeAsync(998);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1); // C's hold ends
    expect(fired).toEqual(["A", "B", "C"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(["A", "B", "C", "D"]);
  });

  it("a timer firing a little before its holds end by the wall clock still lets the whole group go in one tick", async () => {
    const { keep, fired } = timers();
    keep("A");
    await vi.advanceTimersByTimeAsync(100);
    keep("B"); // the group ends with B's hold, 1,100 ms from the start
    // Node counts a timer from the event loop's clock, read when the tick began: a tick that ran a
    // while makes the timer fire that much before Date.now() reaches the hold's end (seen 1-100 ms
    // under load). Here the wall clock is put 5 ms behind the timers.
    vi.setSystemTime(Date.now() - 5);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fired).toEqual(["A", "B"]);
  });

  it("the threads still kept are let go when another one's let-go is cancelled", async () => {
    const { t, keep, fired } = timers();
    keep("A");
    keep("B");
    t.cancel("A");
    await vi.advanceTimersByTimeAsync(1250);
    expect(fired).toEqual(["B"]);
  });

  it("a thread kept after the timer fired for another is let go at its own hold's end", async () => {
    const { keep, fired } = timers();
    keep("A");
    await vi.advanceTimersByTimeAsync(600);
    keep("B");
    await vi.advanceTimersByTimeAsync(500);
    expect(fired).toEqual(["A"]);
    await vi.advanceTimersByTimeAsync(750);
    expect(fired).toEqual(["A", "B"]);
  });

  it("share one timer however many threads are kept, and leave none armed when none is kept", async () => {
    const { t, keep, fired } = timers();
    expect(vi.getTimerCount()).toBe(0);
    for (const id of ["A", "B", "C"]) keep(id);
    expect(vi.getTimerCount()).toBe(1);
    for (const id of ["A", "B", "C"]) t.cancel(id);
    expect(vi.getTimerCount()).toBe(0);
    // Kept again after all were cancelled: a timer again, and the let-go on time.
    keep("D");
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fired).toEqual(["D"]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
