// A sender restricted to some partitions (several instances) names its share to the timed look's
// read of the next due time as to its due read: a piece of another instance's partition coming due
// does not wake it. Before, the look saw that piece due, woke a pass whose due read (its share only)
// found nothing, and looked again every baseDelayMs for as long as the piece stayed pending there
// (a helper with a quarter of the partitions looked 22-26 times a minute at rest, #45.3).
// Time is vitest's fake clock: setTimeout and Date only, so promises and setImmediate run as usual.
import { describe, expect, it, vi } from "vitest";
import { WAKE_SPACING_MS } from "../src/outbox-options.js";
import { inShare, type OutboxShare } from "../src/outbox-partition.js";
import { MockGateway } from "../src/testing/index.js";
import { countReads, flush, piece, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();

useFakeClock();

const share: OutboxShare = { of: 4, parts: [2], hashed: ["mock"] };
const threads = Array.from({ length: 100 }, (_, i) => `t${i}`);
const mine = threads.find((t) => inShare(share, { gateway: "mock", thread: t }))!;
const theirs = threads.find((t) => !inShare(share, { gateway: "mock", thread: t }))!;

describe("a restricted sender's timed look", () => {
  it("does not wake for a piece due later in another instance's partition: one next-due read every idlePollMs, no due read", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 5_000 });
    await store.outbox.enqueue([{ ...piece("mock", theirs, "theirs"), notBefore: Date.now() + 2_000 }]);
    sender.restrict(
      (row) => inShare(share, row),
      undefined,
      () => share,
    );
    const asked: (OutboxShare | undefined)[] = [];
    const reads = countReads(store, (given) => asked.push(given));
    sender.start();
    await sender.settled();
    await flush();
    expect(reads).toEqual({ due: 1, nextDueAt: 1 });
    // Their piece is due from 2 s on; the sender looks at 5 s and 10 s only, and never reads the due pieces.
    // (Before: a look at 2 s that woke a pass, then a look and a due read every second.)
    await vi.advanceTimersByTimeAsync(10_000);
    await flush();
    expect(reads).toEqual({ due: 1, nextDueAt: 3 });
    expect(asked).toEqual([share, share, share]);
    expect(mock.sent).toEqual([]);
  });

  it("still wakes when a piece of its own partition comes due, and sends it", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 5_000 });
    await store.outbox.enqueue([
      { ...piece("mock", theirs, "theirs"), notBefore: Date.now() + 1_000 },
      { ...piece("mock", mine, "mine"), notBefore: Date.now() + 2_000 },
    ]);
    sender.restrict(
      (row) => inShare(share, row),
      undefined,
      () => share,
    );
    sender.start();
    await sender.settled();
    await flush();
    await vi.advanceTimersByTimeAsync(1_999);
    expect(mock.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    await sender.settled();
    expect(mock.textsTo(mine)).toEqual(["mine"]);
    expect(mock.textsTo(theirs)).toEqual([]);
  });

  it("a thread's next piece in its own partition is looked for two wake spacings after the head's pass, not baseDelayMs later", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 600_000 });
    await store.outbox.enqueue([piece("mock", mine, "one"), piece("mock", mine, "two")]);
    sender.restrict(
      (row) => inShare(share, row),
      undefined,
      () => share,
    );
    sender.start();
    await flush();
    expect(mock.textsTo(mine)).toEqual(["one"]);
    // The look after a pass that found a piece: two wake spacings later (before: baseDelayMs, 1 s).
    await vi.advanceTimersByTimeAsync(2 * WAKE_SPACING_MS);
    await flush();
    await sender.settled();
    expect(mock.textsTo(mine)).toEqual(["one", "two"]);
  });
});
