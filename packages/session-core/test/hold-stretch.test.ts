import { describe, expect, it } from "vitest";
import { HOLD_TIERS, HoldStretch } from "../src/hold-stretch.js";

describe("HoldStretch", () => {
  it("steps a thread taken back within its hold up a tier, at most the last, and back to 0 once it stays away", () => {
    const s = new HoldStretch(1000);
    s.taken("t", 0);
    expect(s.tier("t")).toBe(0);
    s.letGo("t", 1000);
    s.taken("t", 1999);
    expect(s.tier("t")).toBe(1);
    s.letGo("t", 3000);
    s.taken("t", 4999);
    expect(s.tier("t")).toBe(2);
    s.letGo("t", 5000);
    s.taken("t", 5001);
    expect(s.tier("t")).toBe(HOLD_TIERS - 1);
    s.letGo("t", 6000);
    // Away exactly its hold (4 s at the last tier): not a quick return.
    s.taken("t", 10_000);
    expect(s.tier("t")).toBe(0);
  });

  it("forgets a let-go once no take could step it up: after the longest hold, at the next let-go", () => {
    const s = new HoldStretch(1000);
    for (let i = 0; i < 50; i++) s.letGo(`t${i}`, i);
    expect(s.remembered).toBe(50);
    // The longest hold is 4 s: the let-gos that old go with the next one (t49 is 3,999 ms old).
    s.letGo("late", 48 + 4000);
    expect(s.remembered).toBe(2);
    s.letGo("later", 49 + 8000);
    expect(s.remembered).toBe(1);
    // A take forgets its thread's let-go.
    s.taken("later", 49 + 8001);
    expect(s.remembered).toBe(0);
  });

  it("a thread lost or taken back late holds no tier", () => {
    const s = new HoldStretch(1000);
    s.letGo("t", 0);
    s.taken("t", 10);
    expect(s.tier("t")).toBe(1);
    s.forget("t");
    expect(s.tier("t")).toBe(0);
    s.letGo("u", 0);
    s.taken("u", 10);
    s.letGo("u", 20);
    expect(s.tier("u")).toBe(0);
    s.taken("u", 5000);
    expect(s.tier("u")).toBe(0);
  });
});
