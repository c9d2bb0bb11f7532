// A woken pass spaced after a busy one (outbox-sender.ts #begin, #45.3) runs by itself at its time:
// its store reads are the pass's due read and, after it, one look at the next due time. Not a look
// first that finds the pieces due and starts the pass (a read more for every spaced pass, the reads
// the spacing is there to save). Time is vitest's fake clock (setTimeout and Date).
import { describe, expect, it, vi } from "vitest";
import { WAKE_SPACING_MS } from "../src/outbox-options.js";
import { MockGateway } from "../src/testing/index.js";
import { flush, piece, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();

useFakeClock();

describe("a woken pass spaced after a busy one", () => {
  it("reads the due pieces at its time with no look at the next due time before it, and one after", async () => {
    const gateway = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([gateway], { idlePollMs: 600_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await sender.settled();
    await flush();
    const reads: string[] = [];
    const due = store.outbox.due.bind(store.outbox);
    const nextDueAt = store.outbox.nextDueAt.bind(store.outbox);
    store.outbox.due = (now, limit) => {
      reads.push("due");
      return due(now, limit);
    };
    store.outbox.nextDueAt = () => {
      reads.push("next");
      return nextDueAt();
    };
    await store.outbox.enqueue([piece("mock", "B", "b1")]);
    sender.wake();
    await flush();
    expect(reads).toEqual([]);
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await sender.settled();
    await flush();
    expect(gateway.sent.map((s) => s.text)).toEqual(["a1", "b1"]);
    expect(reads).toEqual(["due", "next"]);
  });
});
