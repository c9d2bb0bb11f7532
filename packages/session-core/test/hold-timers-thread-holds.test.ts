// ThreadHolds (hold-timers.ts): the idle holds of each tier and the suspended one side by side, on a
// fake clock. Found by a mutation run (#45): the tests through Ownership never cancelled a kept
// thread's let-go here nor let one go for a thread waiting for room (fireOldest), so neither a
// cancel that did nothing nor a fireOldest that let every kind go at once failed a test.
import { afterEach, describe, expect, it, vi } from "vitest";
import { SUSPENDED_HOLD_MS, ThreadHolds } from "../src/hold-timers.js";

afterEach(() => {
  vi.useRealTimers();
});

/** Holds of 2,000 ms (tiers 2,000, 4,000 and 8,000; suspended 1,000) gathering within 250 ms. */
function holds() {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(300_000);
  const fired: string[] = [];
  const h = new ThreadHolds(2000, 250);
  const keep = (id: string, suspended: boolean, tier?: number) =>
    h.keep(id, suspended, () => fired.push(id), tier);
  return { h, keep, fired };
}

describe("threads kept idle (each tier) or suspended", () => {
  it("a thread with work again is not let go, whichever hold kept it; the others still are at their hold's end", async () => {
    const { h, keep, fired } = holds();
    keep("idle-1x", false, 0);
    keep("idle-2x", false, 1);
    keep("idle-4x", false, 2);
    keep("suspended", true);
    keep("idle-kept", false, 0);
    for (const id of ["idle-1x", "idle-2x", "idle-4x", "suspended"]) h.cancel(id);
    await vi.advanceTimersByTimeAsync(8000 + 250);
    expect(fired).toEqual(["idle-kept"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a suspended thread is let go after SUSPENDED_HOLD_MS, the idle ones after their tier's hold", async () => {
    const { keep, fired } = holds();
    keep("idle-4x", false, 2);
    keep("idle-2x", false, 1);
    keep("idle-1x", false, 0);
    keep("suspended", true);
    await vi.advanceTimersByTimeAsync(SUSPENDED_HOLD_MS);
    expect(fired).toEqual(["suspended"]);
    await vi.advanceTimersByTimeAsync(2000 - SUSPENDED_HOLD_MS);
    expect(fired).toEqual(["suspended", "idle-1x"]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(fired).toEqual(["suspended", "idle-1x", "idle-2x"]);
    await vi.advanceTimersByTimeAsync(4000);
    expect(fired).toEqual(["suspended", "idle-1x", "idle-2x", "idle-4x"]);
  });

  it("for a thread waiting for room, one kept thread is let go at a time: the idle one of the shortest hold first, a suspended one last", async () => {
    const { h, keep, fired } = holds();
    keep("suspended", true);
    keep("idle-2x", false, 1); // kept before idle-1x, but its hold is longer
    keep("idle-1x", false, 0);
    expect(h.fireOldest()).toBe(true);
    expect(fired).toEqual(["idle-1x"]);
    expect(h.fireOldest()).toBe(true);
    expect(fired).toEqual(["idle-1x", "idle-2x"]);
    expect(h.fireOldest()).toBe(true);
    expect(fired).toEqual(["idle-1x", "idle-2x", "suspended"]);
    // None kept: nothing let go, and it says so (Ownership then leaves the thread waiting).
    expect(h.fireOldest()).toBe(false);
    expect(fired).toEqual(["idle-1x", "idle-2x", "suspended"]);
    // None of them is let go a second time at its hold's end.
    await vi.advanceTimersByTimeAsync(8000 + 250);
    expect(fired).toEqual(["idle-1x", "idle-2x", "suspended"]);
  });
});
