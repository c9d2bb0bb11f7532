// Per-chat pacing of edits (Discord channels, Telegram groups) on a manual clock: the waits it hands
// out, and that it keeps only the chats paced lately, not every chat a process ever streamed to.
import { describe, expect, it, vi } from "vitest";
import { EditPacing } from "../src/edit-pacing.js";
import { GatewaySendError } from "../src/errors.js";

function clocked(gapMs: number) {
  let now = 1_000_000;
  const pacing = new EditPacing(
    () => gapMs,
    () => now,
  );
  return {
    pacing,
    advance(ms: number) {
      now += ms;
    },
  };
}

describe("EditPacing", () => {
  it("books one chat's edits a gap apart, each chat on its own", () => {
    const { pacing, advance } = clocked(1000);
    expect(pacing.reserve("A")).toBe(0);
    expect(pacing.reserve("A")).toBe(1000);
    expect(pacing.reserve("B")).toBe(0);
    advance(2500); // A's third slot (at 2000) has passed
    expect(pacing.reserve("A")).toBe(0);
    expect(pacing.reserve("A")).toBe(1000);
  });

  it("a 429 holds the chat until its retry-after, and never brings a later booking forward", () => {
    const { pacing, advance } = clocked(1000);
    pacing.hold("A", 5000);
    expect(pacing.reserve("A")).toBe(5000);
    pacing.hold("A", 10); // A's next slot is 6000 from now already
    expect(pacing.reserve("A")).toBe(6000);
    advance(20_000);
    expect(pacing.reserve("A")).toBe(0);
  });

  it("10 000 chats paced one after another keep only those within the gap: the map stays under twice them, and a recent chat keeps its booking", () => {
    const { pacing, advance } = clocked(1000);
    let largest = 0;
    // 10 ms apart with a 1 s gap: about 100 chats are within their gap at any time.
    for (let i = 0; i < 10_000; i++) {
      expect(pacing.reserve(`chat-${i}`)).toBe(0);
      largest = Math.max(largest, pacing.size);
      advance(10);
    }
    expect(largest).toBeLessThanOrEqual(2 * 101);
    // The last chat was booked 10 ms ago, the 50th from last 500 ms ago: both still wait their turn.
    expect(pacing.reserve("chat-9999")).toBe(990);
    expect(pacing.reserve("chat-9950")).toBe(500);
    // One paced long ago starts at once, as it did when the map kept it.
    expect(pacing.reserve("chat-0")).toBe(0);
  });

  it("limited holds the chat for a failure's retry-after and passes the failure on; other failures hold only the gap", async () => {
    const { pacing } = clocked(1000);
    const limited = new GatewaySendError("429", { retryAfterMs: 7000 });
    await expect(pacing.limited("A", () => Promise.reject(limited))).rejects.toBe(limited);
    expect(pacing.reserve("A")).toBe(7000);
    const other = new GatewaySendError("500");
    await expect(pacing.limited("B", () => Promise.reject(other))).rejects.toBe(other);
    await expect(pacing.limited("B", async () => "sent")).resolves.toBe("sent");
    expect(pacing.reserve("B")).toBe(1000);
  });

  it("the next edit starts a gap after the last one's answer when it came late, answered or failed", async () => {
    const { pacing, advance } = clocked(1000);
    expect(pacing.reserve("A")).toBe(0);
    // Answered 300 ms after its slot: the platform counted it then, not at the slot.
    await pacing.limited("A", async () => advance(300));
    expect(pacing.reserve("A")).toBe(1000);
    advance(1000);
    await expect(
      pacing.limited("A", async () => {
        advance(400);
        throw new GatewaySendError("500");
      }),
    ).rejects.toThrow("500");
    expect(pacing.reserve("A")).toBe(1000);
  });

  it("wait returns at once for a chat whose slot is now", async () => {
    const { pacing } = clocked(60_000);
    await pacing.wait("A"); // a minute's gap: a second wait would hang the test
    expect(pacing.reserve("A")).toBe(60_000);
  });

  it("an edit whose timer fires while the wall clock is still a few ms short of its slot starts only at the slot", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const pacing = new EditPacing(() => 1_000);
      const first = Date.now();
      await pacing.wait("A");
      let startedAt: number | undefined;
      void pacing.wait("A").then(() => {
        startedAt = Date.now();
      });
      // Node's timers count from the loop's clock as the arming tick began: the wall clock 5 ms behind.
      vi.setSystemTime(first - 5);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(startedAt).toBeUndefined();
      await vi.advanceTimersByTimeAsync(5);
      expect(startedAt).toBe(first + 1_000);
    } finally {
      vi.useRealTimers();
    }
  });
});
