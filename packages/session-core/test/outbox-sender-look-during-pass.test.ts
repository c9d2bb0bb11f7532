// The outbox sender's timed look (outbox-sender.ts #look) coming due while a pass runs reads
// nothing: the pass reads the due pieces itself, and the next look is armed after it. It does not
// ask the store for the next due time only to drop the answer.
import { describe, expect, it, vi } from "vitest";
import { countReads, flush, GatedGateway, piece, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();

useFakeClock();

describe("the outbox sender's timed look during a pass", () => {
  it("reads neither the next due time nor due pieces while the pass's send is in flight", async () => {
    const gated = new GatedGateway({ name: "gated" });
    const { store, sender } = setUp([gated], { baseDelayMs: 1_000, idlePollMs: 5_000 });
    const reads = countReads(store);
    // Idle: a pass that found nothing, then the look armed 5 s later.
    sender.start();
    await sender.settled();
    await flush();
    expect(reads).toEqual({ due: 1, nextDueAt: 1 });
    // A piece queued at 1 s: its pass's send waits past the look's time.
    await vi.advanceTimersByTimeAsync(1_000);
    await store.outbox.enqueue([piece("gated", "A", "a1")]);
    sender.wake();
    await flush();
    expect(gated.inFlight).toBe(1);
    const during = { ...reads };
    try {
      await vi.advanceTimersByTimeAsync(10_000);
      await flush();
      expect(reads).toEqual(during);
    } finally {
      // A failed expectation still lets the send end (the sender's stop waits for it).
      gated.openAll();
    }
    await sender.settled();
    expect(gated.textsTo("A")).toEqual(["a1"]);
  });
});
