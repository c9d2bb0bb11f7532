// After a pass (outbox-sender.ts #arm, #look): a thread's next piece, due as its head went, is sent
// by a pass at once after one read of the next due time, not by a timed look (a second read); with
// nothing due, no due read; a piece due later is read for when it comes due, not before. A pass the
// timed look ran for a piece that came due reads the next due time again after it (only a look that
// could not read it skips that). drained() waits for the batch in flight, and resolves on a sender
// that never sent. Time is vitest's fake clock (setTimeout and Date).
import { describe, expect, it, vi } from "vitest";
import { WAKE_SPACING_MS } from "../src/outbox-options.js";
import { MockGateway } from "../src/testing/index.js";
import { countReads, flush, GatedGateway, piece, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();

useFakeClock();

describe("a thread's next piece after a pass", () => {
  it("is sent by a pass at once: two passes, two due reads each and one next-due read each", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { idlePollMs: 600_000 });
    await store.outbox.enqueue([piece("mock", "A", "one"), piece("mock", "A", "two")]);
    const reads = countReads(store);
    sender.start();
    await flush();
    // The second pass starts WAKE_SPACING_MS after the first, which found a piece.
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await flush();
    await sender.settled();
    await flush();
    expect(mock.textsTo("A")).toEqual(["one", "two"]);
    // Each pass: one read (one piece, a short read); after each, one next-due read.
    expect(reads).toEqual({ due: 2, nextDueAt: 2 });
  });

  it("nothing due after a pass: no more due reads until the idle look", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { idlePollMs: 600_000 });
    await store.outbox.enqueue([piece("mock", "A", "one")]);
    const reads = countReads(store);
    sender.start();
    await sender.settled();
    await flush();
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    expect(reads).toEqual({ due: 1, nextDueAt: 1 });
  });

  it("due later: the idle looks before it read its time only, and it is sent when it comes due", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { idlePollMs: 1_000 });
    await store.outbox.enqueue([{ ...piece("mock", "A", "later"), notBefore: Date.now() + 2_500 }]);
    const reads = countReads(store);
    sender.start();
    await sender.settled();
    await flush();
    expect(reads).toEqual({ due: 1, nextDueAt: 1 });
    // Idle looks at 1 s and 2 s find it due later: no pass, no due read.
    await vi.advanceTimersByTimeAsync(2_000);
    await flush();
    expect(reads).toEqual({ due: 1, nextDueAt: 3 });
    await vi.advanceTimersByTimeAsync(500);
    await flush();
    await sender.settled();
    expect(mock.textsTo("A")).toEqual(["later"]);
  });

  it("a look whose read ends after the sender stopped reports no empty pass", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { idlePollMs: 1_000 });
    const passed: number[] = [];
    sender.pressure = { backlogAfter: 64, backlog: () => {}, passed: (sent) => passed.push(sent) };
    sender.start();
    await sender.settled();
    await flush();
    expect(passed).toEqual([0]);
    let answer: (at: number | undefined) => void = () => {};
    store.outbox.nextDueAt = () => new Promise((resolve) => (answer = resolve));
    await vi.advanceTimersByTimeAsync(1_000); // the idle look: its read waits
    await sender.stop();
    answer(undefined);
    await flush();
    expect(passed).toEqual([0]);
  });

  it("after a pass the timed look ran, the thread's next piece goes at once, not baseDelayMs later", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 600_000 });
    await store.outbox.enqueue([
      { ...piece("mock", "A", "one"), notBefore: Date.now() + 2_000 },
      piece("mock", "A", "two"),
    ]);
    sender.start();
    await sender.settled();
    await flush();
    expect(mock.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    await flush();
    // The second pass: WAKE_SPACING_MS after the first, well before baseDelayMs.
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await flush();
    expect(mock.textsTo("A")).toEqual(["one", "two"]);
  });
});

describe("drained()", () => {
  it("resolves on a sender that never sent", async () => {
    const { sender } = setUp([new MockGateway({ name: "mock" })]);
    await expect(sender.drained()).resolves.toBeUndefined();
  });

  it("waits for the batch in flight", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { store, sender } = setUp([gated], { idlePollMs: 600_000 });
    await store.outbox.enqueue([piece("mock", "A", "one")]);
    sender.start();
    await flush();
    let drained = false;
    void sender.drained().then(() => (drained = true));
    await flush();
    expect(gated.inFlight).toBe(1);
    expect(drained).toBe(false);
    gated.openAll();
    await flush();
    expect(drained).toBe(true);
    expect(gated.textsTo("A")).toEqual(["one"]);
  });
});

describe("a restricted sender's wakes", () => {
  it("without anyone to pass them on to (elsewhere unset) it is woken and sends its pieces", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { idlePollMs: 600_000 }, { elsewhere: false });
    sender.restrict(() => true);
    sender.start();
    await sender.settled();
    await store.outbox.enqueue([piece("mock", "A", "one")]);
    expect(() => sender.wake()).not.toThrow();
    await flush();
    await sender.settled();
    expect(mock.textsTo("A")).toEqual(["one"]);
  });

  it("a wake during a pass is passed on once: the pass it asks for after is not passed on again", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([gated], { idlePollMs: 600_000 });
    sender.restrict(() => true);
    await store.outbox.enqueue([piece("mock", "A", "one")]);
    sender.start();
    await flush();
    expect(gated.inFlight).toBe(1);
    await store.outbox.enqueue([piece("mock", "B", "two")]);
    sender.wake();
    expect(elsewhere).toHaveLength(1);
    gated.openAll();
    await flush();
    gated.openAll();
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    gated.openAll();
    await sender.settled();
    expect(gated.textsTo("B")).toEqual(["two"]);
    expect(elsewhere).toHaveLength(1);
  });

  it("a piece of its own coming due wakes a pass from the timed look, not passed on", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 600_000 });
    sender.restrict(() => true);
    await store.outbox.enqueue([{ ...piece("mock", "A", "later"), notBefore: Date.now() + 2_000 }]);
    sender.start();
    await sender.settled();
    await vi.advanceTimersByTimeAsync(2_000);
    await flush();
    await sender.settled();
    expect(mock.textsTo("A")).toEqual(["later"]);
    expect(elsewhere).toEqual([]);
  });
});
