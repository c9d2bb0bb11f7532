// A timed look that could not read the next due time (outbox-sender.ts #look, #arm): it runs a pass
// (the pass reads the due pieces itself), and the look after that pass comes baseDelayMs later: the
// store just failed, so it is not asked the next due time again at once, nor left for idlePollMs.
// That holds for that one pass: the next pass, woken by a piece queued, reads the next due time.
// Found by a mutation run (#45): no test failed a look's read, only a pass's. Time is vitest's fake
// clock (setTimeout and Date).
import { describe, expect, it, vi } from "vitest";
import { WAKE_SPACING_MS } from "../src/outbox-options.js";
import { MockGateway } from "../src/testing/index.js";
import { flush, piece, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();

useFakeClock();

/** Pieces of A due at 2 s and of B at 2.5 s; the second read of the next due time (the look at 2 s) fails. */
async function failedLookAt2s(store: ReturnType<typeof setUp>["store"]) {
  await store.outbox.enqueue([
    { ...piece("mock", "A", "one"), notBefore: Date.now() + 2_000 },
    { ...piece("mock", "B", "two"), notBefore: Date.now() + 2_500 },
  ]);
  const counted = { reads: 0 };
  const nextDueAt = store.outbox.nextDueAt.bind(store.outbox);
  store.outbox.nextDueAt = async (share) => {
    counted.reads += 1;
    if (counted.reads === 2) throw new Error("database unreachable");
    return nextDueAt(share);
  };
  return counted;
}

describe("a timed look whose read of the next due time failed", () => {
  it("runs a pass, and the next look comes baseDelayMs after it: a piece due meanwhile waits for that look", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 600_000 });
    const counted = await failedLookAt2s(store);
    sender.start();
    await sender.settled();
    await flush();
    expect(counted.reads).toBe(1);
    await vi.advanceTimersByTimeAsync(2_000);
    await flush();
    await sender.settled();
    expect(mock.textsTo("A")).toEqual(["one"]);
    // Not read again after the pass (the look at 2.5 s that would have sent "two").
    await vi.advanceTimersByTimeAsync(999);
    await flush();
    expect(counted.reads).toBe(2);
    expect(mock.textsTo("B")).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    await sender.settled();
    expect(mock.textsTo("B")).toEqual(["two"]);
    // That look's read, and the one after its pass.
    expect(counted.reads).toBe(4);
  });

  it("only its own pass skips the read: a pass woken after it reads the next due time, and a piece due then goes on time", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 600_000 });
    const counted = await failedLookAt2s(store);
    sender.start();
    await sender.settled();
    await vi.advanceTimersByTimeAsync(2_000);
    await flush();
    await sender.settled();
    expect(mock.textsTo("A")).toEqual(["one"]);
    expect(counted.reads).toBe(2);
    // A reply queued at 2.1 s wakes a pass; the read after it finds "two" due at 2.5 s.
    await vi.advanceTimersByTimeAsync(100);
    await store.outbox.enqueue([piece("mock", "C", "three")]);
    sender.wake();
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await flush();
    await sender.settled();
    expect(mock.textsTo("C")).toEqual(["three"]);
    expect(counted.reads).toBe(3);
    await vi.advanceTimersByTimeAsync(2_500 - 2_100 - WAKE_SPACING_MS);
    await flush();
    await sender.settled();
    expect(mock.textsTo("B")).toEqual(["two"]);
  });
});
