// When EditPacing walks its map to drop chats whose slot has passed: at 64 entries, then only once
// the map has doubled since the last sweep (a walk at every booking would cost O(chats) each, and
// a map swept too rarely keeps chats long gone). Seen through `size`, on a manual clock.
import { describe, expect, it } from "vitest";
import { EditPacing } from "../src/edit-pacing.js";

describe("EditPacing's sweep", () => {
  it("keeps passed chats until the map has doubled since the last sweep, then drops every chat whose slot is now or past", () => {
    let now = 1_000_000;
    const pacing = new EditPacing(
      () => 1000,
      () => now,
    );
    // 100 chats booked at once: the sweep at 64 entries finds none passed and sets the next at 128.
    for (let i = 0; i < 100; i++) pacing.reserve(`early-${i}`);
    expect(pacing.size).toBe(100);
    // Their next slots are exactly now: passed, but no sweep runs before the map holds 128.
    now += 1000;
    for (let i = 0; i < 27; i++) pacing.reserve(`late-${i}`);
    expect(pacing.size).toBe(127);
    // The 128th entry sweeps: the 100 early chats go, the 28 late ones (a slot still ahead) stay.
    pacing.reserve("late-27");
    expect(pacing.size).toBe(28);
    expect(pacing.reserve("late-0")).toBe(1000);
    expect(pacing.reserve("early-0")).toBe(0);
  });

  it("sweeps nothing below 64 entries, however many have passed", () => {
    let now = 1_000_000;
    const pacing = new EditPacing(
      () => 1000,
      () => now,
    );
    for (let i = 0; i < 63; i++) {
      pacing.reserve(`chat-${i}`);
      now += 1000;
    }
    expect(pacing.size).toBe(63);
    // The 64th: one walk drops the 63 passed ones.
    pacing.reserve("chat-63");
    expect(pacing.size).toBe(1);
  });
});
