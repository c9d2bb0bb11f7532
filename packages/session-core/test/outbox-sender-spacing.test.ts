// Woken passes of the outbox sender are spaced (#45.3): on three instances every instance's
// committed reply woke the leader's sender, and each pass read the queue to find ~2 pieces. Wakes
// during a pass that found pieces, or within WAKE_SPACING_MS of its start, share one pass at that
// time; a wake after a quieter spell, or after a pass that found nothing, still sends at once.
// Time is vitest's fake clock (setTimeout and Date), so "at once" means with no clock moved.
import { describe, expect, it, vi } from "vitest";
import { WAKE_SPACING_MS } from "../src/outbox-options.js";
import { MockGateway } from "../src/testing/index.js";
import { flush, GatedGateway, piece, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();

useFakeClock();

/** Counts the store's reads of due pieces. */
function countDueReads(store: ReturnType<typeof setUp>["store"]) {
  const reads = { due: 0 };
  const due = store.outbox.due.bind(store.outbox);
  store.outbox.due = (now, limit) => {
    reads.due += 1;
    return due(now, limit);
  };
  return reads;
}

/** A gateway that records when (on the fake clock) each text went out. */
class TimedGateway extends MockGateway {
  readonly at: [string, number][] = [];
  override async send(...args: Parameters<MockGateway["send"]>): ReturnType<MockGateway["send"]> {
    this.at.push([args[1], Date.now()]);
    return super.send(...args);
  }
}

describe("woken passes of the outbox sender", () => {
  it("replies woken one by one right after a pass that sent one go out together, in one pass WAKE_SPACING_MS after its start", async () => {
    const gateway = new TimedGateway({ name: "mock" });
    const { store, sender } = setUp([gateway], { idlePollMs: 600_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const start = Date.now();
    sender.start();
    await sender.settled();
    await flush();
    const reads = countDueReads(store);
    for (const t of ["B", "C", "D"]) {
      await store.outbox.enqueue([piece("mock", t, `${t}1`)]);
      sender.wake();
      await flush();
    }
    // Not sent yet: each wake joined the pass waiting for its start.
    expect(gateway.at).toEqual([["a1", start]]);
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await sender.settled();
    expect(gateway.at.slice(1).sort()).toEqual([
      ["B1", start + WAKE_SPACING_MS],
      ["C1", start + WAKE_SPACING_MS],
      ["D1", start + WAKE_SPACING_MS],
    ]);
    // One read of the due pieces for the three wakes (one a wake without the spacing).
    expect(reads.due).toBe(1);
  });

  it("wakes during a pass that is sending ask for one following pass, which sends every piece queued meanwhile", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { store, sender } = setUp([gated], { idlePollMs: 600_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    for (let i = 0; i < 50 && gated.inFlight === 0; i++) await flush(1);
    const reads = countDueReads(store);
    for (const t of ["B", "C", "D", "E"]) {
      await store.outbox.enqueue([piece("mock", t, `${t}1`)]);
      sender.wake();
    }
    gated.openAll();
    await flush();
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await flush();
    gated.openAll();
    await sender.settled();
    expect(gated.sent.map((s) => s.text).sort()).toEqual(["B1", "C1", "D1", "E1", "a1"]);
    expect(reads.due).toBe(1);
  });

  it("a wake after a quiet spell sends at once", async () => {
    const gateway = new TimedGateway({ name: "mock" });
    const { store, sender } = setUp([gateway], { idlePollMs: 600_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await sender.settled();
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await sender.settled();
    await store.outbox.enqueue([piece("mock", "B", "b1")]);
    const woken = Date.now();
    sender.wake();
    await sender.settled();
    expect(gateway.at.at(-1)).toEqual(["b1", woken]);
  });

  it("a wake after a pass that found nothing sends at once", async () => {
    const gateway = new TimedGateway({ name: "mock" });
    const { store, sender } = setUp([gateway], { idlePollMs: 600_000 });
    sender.start();
    await sender.settled();
    await store.outbox.enqueue([piece("mock", "B", "b1")]);
    const woken = Date.now();
    sender.wake();
    await sender.settled();
    expect(gateway.at).toEqual([["b1", woken]]);
  });

  it("a stop while a pass waits for its start resolves with no clock moved, and that pass sends nothing", async () => {
    const gateway = new TimedGateway({ name: "mock" });
    const { store, sender } = setUp([gateway], { idlePollMs: 600_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await sender.settled();
    await store.outbox.enqueue([piece("mock", "B", "b1")]);
    sender.wake();
    await sender.stop();
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await flush();
    expect(gateway.at.map(([text]) => text)).toEqual(["a1"]);
    expect((await store.outbox.list("mock", "B"))[0]?.status).toBe("pending");
  });
});
