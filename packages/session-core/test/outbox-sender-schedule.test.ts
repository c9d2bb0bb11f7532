// When the outbox sender looks at the queue: one pass at a time, a wake during a pass answered by
// one more pass, the next look armed for the next due piece (later while a gateway is held, soon
// after the store failed), nothing armed or read once stopped, and no timer keeping the process up.
// Time is vitest's fake clock: setTimeout and Date only, so promises and setImmediate run as usual.
import { describe, expect, it, vi } from "vitest";
import { WAKE_SPACING_MS } from "../src/outbox-options.js";
import { inShare, type OutboxShare } from "../src/outbox-partition.js";
import { MockGateway } from "../src/testing/index.js";
import { flush, GatedGateway, piece, statuses, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();
type Setup = ReturnType<typeof setUp>;

useFakeClock();

/** Flushes until `check` holds (a chain of promises, no clock involved). */
async function flushUntil(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await flush(1);
  }
  throw new Error(`${what} not reached`);
}

/** Counts the store's reads of due pieces (with the limits asked for) and of the next due time. */
function countReads(store: ReturnType<typeof setUp>["store"]) {
  const reads = { due: [] as (number | undefined)[], nextDueAt: 0 };
  const due = store.outbox.due.bind(store.outbox);
  const nextDueAt = store.outbox.nextDueAt.bind(store.outbox);
  store.outbox.due = async (now, limit, fence, share) => {
    reads.due.push(limit);
    return due(now, limit, fence, share);
  };
  // The share passed on, as the store answers it (a restricted sender's read names its partitions).
  store.outbox.nextDueAt = (share) => {
    reads.nextDueAt += 1;
    return nextDueAt(share);
  };
  return reads;
}

/** The store's first read of due pieces fails (after `during` ran); later reads go through. */
function failFirstRead(store: Setup["store"], during = () => {}): void {
  const due = store.outbox.due.bind(store.outbox);
  let failed = false;
  store.outbox.due = async (now, limit) => {
    if (failed) return due(now, limit);
    failed = true;
    await null; // the pass is under way (the sender has recorded it) before `during` acts
    during();
    throw new Error("database unreachable");
  };
}

describe("a sender that is not running", () => {
  it("passes a wake before its start on to whoever sends, and sends nothing itself", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([mock]);
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.wake();
    await flush();
    expect(elsewhere).toEqual([1]);
    expect(mock.sent).toEqual([]);
    expect(await statuses(store, "mock", "A")).toEqual([["pending", 0]]);
  });

  it("does not pass back a wake that came from elsewhere: it would bounce between the instances for good", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([mock]);
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.wake(true);
    await flush();
    expect(elsewhere).toEqual([]);
    expect(mock.sent).toEqual([]);
  });

  it("ignores a wake when nobody else sends (no elsewhere given)", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], {}, { elsewhere: false });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    expect(() => sender.wake()).not.toThrow();
    await flush();
    expect(mock.sent).toEqual([]);
  });

  it("says whether a piece is due without sending it", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock]);
    expect(await sender.hasDue()).toBe(false);
    await store.outbox.enqueue([{ ...piece("mock", "A", "a1"), notBefore: Date.now() + 1_000 }]);
    expect(await sender.hasDue()).toBe(false);
    expect(await sender.hasDue(Date.now() + 1_000)).toBe(true);
    expect(mock.sent).toEqual([]);
  });

  it("reads one row to say a piece is due when the first due piece can be sent", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock]);
    await store.outbox.enqueue([
      piece("mock", "A", "a1"),
      piece("mock", "B", "b1"),
      piece("mock", "C", "c1"),
    ]);
    const reads = countReads(store);
    expect(await sender.hasDue()).toBe(true);
    expect(reads.due).toEqual([1]);
  });
});

describe("a sender restricted to some pieces (several instances, outbox-shares.ts)", () => {
  it("passes a wake on to whoever sends the rest as well as sending its own: the piece queued may be theirs", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([mock]);
    sender.restrict((row) => row.thread === "mine");
    sender.start();
    await sender.settled();
    await store.outbox.enqueue([piece("mock", "mine", "m1"), piece("mock", "theirs", "t1")]);
    sender.wake();
    await sender.settled();
    expect(elsewhere).toEqual([1]);
    expect(mock.textsTo("mine")).toEqual(["m1"]);
    expect(mock.textsTo("theirs")).toEqual([]);
  });

  it("does not pass back a wake that came from elsewhere, and an unrestricted sender passes none on", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([mock]);
    sender.restrict((row) => row.thread === "mine");
    sender.start();
    await sender.settled();
    await store.outbox.enqueue([piece("mock", "mine", "m1")]);
    sender.wake(true);
    await sender.settled();
    sender.restrict(undefined);
    sender.wake();
    // Within WAKE_SPACING_MS of the pass that sent m1: this wake's pass comes that long after it.
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await sender.settled();
    expect(elsewhere).toEqual([]);
    expect(mock.textsTo("mine")).toEqual(["m1"]);
  });

  it("names its share to the store's due read, which returns only its partitions' heads: a quarter share sending 10 reads 8 and 2 rows (asked for 8, then 32 after a full read), none of the 30 others'", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock]);
    const share: OutboxShare = { of: 4, parts: [2], hashed: ["mock"] };
    const threads = Array.from({ length: 400 }, (_, i) => `t${i}`);
    const mine = threads.filter((t) => inShare(share, { gateway: "mock", thread: t })).slice(0, 10);
    const theirs = threads.filter((t) => !inShare(share, { gateway: "mock", thread: t })).slice(0, 30);
    await store.outbox.enqueue([...theirs, ...mine].map((t) => piece("mock", t, t)));
    sender.restrict(
      (row) => inShare(share, row),
      undefined,
      () => share,
    );
    const reads = countReads(store);
    const returned: number[] = [];
    const due = store.outbox.due.bind(store.outbox);
    store.outbox.due = async (...args) => {
      const rows = await due(...args);
      returned.push(rows.length);
      return rows;
    };
    sender.start();
    await sender.settled();
    expect(mock.sent.map((s) => s.thread).sort()).toEqual([...mine].sort());
    // Before, every instance's due heads were read and filtered here: 32, 32, then 64 rows (all 40 each time).
    expect(reads.due).toEqual([8, 32]);
    expect(returned).toEqual([8, 2]);
  });
});

describe("passes over the queue", () => {
  it("a start with nothing queued reads the queue once, then looks again after idlePollMs with one read: the next due time, no due read", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { idlePollMs: 5_000 });
    const reads = countReads(store);
    sender.start();
    await sender.settled();
    await flush();
    expect(reads).toEqual({ due: [8], nextDueAt: 1 });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(reads).toEqual({ due: [8], nextDueAt: 1 });
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(reads).toEqual({ due: [8], nextDueAt: 2 });
    await vi.advanceTimersByTimeAsync(5_000);
    await flush();
    expect(reads).toEqual({ due: [8], nextDueAt: 3 });
  });

  it("a timed look that finds a piece due sends it (written behind the sender's back)", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { idlePollMs: 5_000 });
    sender.start();
    await sender.settled();
    await flush();
    await store.outbox.enqueue([piece("mock", "A", "late")]);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(mock.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    await sender.settled();
    expect(mock.textsTo("A")).toEqual(["late"]);
  });

  it("a wake while a piece is in flight does not send that piece a second time", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { store, sender } = setUp([gated]);
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await flushUntil(() => gated.inFlight === 1, "the send in flight");
    sender.wake();
    await flush();
    gated.openAll();
    await flush();
    // The pass the wake asked for: WAKE_SPACING_MS after the start of the one that sent a1.
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    gated.openAll();
    await sender.settled();
    expect(gated.mostInFlight).toBe(1);
    expect(gated.textsTo("A")).toEqual(["a1"]);
    expect(await statuses(store, "mock", "A")).toEqual([["sent", 1]]);
  });

  it("a piece queued as a pass finds nothing more goes out at once, not at the next timed look", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock]);
    const due = store.outbox.due.bind(store.outbox);
    let queued = false;
    store.outbox.due = async (now, limit) => {
      const rows = await due(now, limit);
      if (rows.length === 0 && !queued) {
        // Another turn writes its reply and wakes the sender just as this pass ends.
        queued = true;
        await store.outbox.enqueue([piece("mock", "B", "late")]);
        sender.wake();
      }
      return rows;
    };
    sender.start();
    await sender.settled();
    // No clock advanced: only the pass the wake asked for can have sent it.
    expect(mock.textsTo("B")).toEqual(["late"]);
  });

  it("a pass whose read found fewer pieces than its concurrency ends without reading the queue again (#45.3)", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock]);
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    await store.outbox.enqueue([piece("mock", "B", "b1")]);
    const reads = countReads(store);
    sender.start();
    await sender.settled();
    await flush();
    expect(mock.textsTo("A")).toEqual(["a1"]);
    expect(mock.textsTo("B")).toEqual(["b1"]);
    expect(reads).toEqual({ due: [8], nextDueAt: 1 });
  });

  it("a thread's next piece goes out in the pass after its head's (WAKE_SPACING_MS later), found by the next-due read, not at a timed look", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { idlePollMs: 60_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1"), piece("mock", "A", "a2")]);
    const reads = countReads(store);
    sender.start();
    await flushUntil(() => mock.textsTo("A").length === 1, "the head sent");
    await flush();
    expect(mock.textsTo("A")).toEqual(["a1"]);
    // The clock moved by the spacing only, far from the timed look: the pass after the next-due read sent it.
    await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
    await flushUntil(() => mock.textsTo("A").length === 2, "the second piece sent");
    await sender.settled();
    expect(mock.textsTo("A")).toEqual(["a1", "a2"]);
    expect(reads.due).toEqual([8, 8]);
  });

  it("settles only once the send in flight has been recorded", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { store, sender, outcomes } = setUp([gated]);
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await flushUntil(() => gated.inFlight === 1, "the send in flight");
    gated.openAll();
    await sender.settled();
    expect(outcomes).toEqual([["mock", "sent"]]);
  });

  it("never has more sends in flight than its concurrency, also when a held gateway's piece comes first", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const held = new MockGateway({ name: "held" });
    const { store, sender } = setUp([gated, held], { concurrency: 2 });
    sender.hold("held");
    await store.outbox.enqueue([
      piece("held", "H", "h1"),
      piece("mock", "A", "a1"),
      piece("mock", "B", "b1"),
      piece("mock", "C", "c1"),
    ]);
    sender.start();
    await flushUntil(() => gated.inFlight >= 2, "sends in flight");
    await flush();
    while (gated.sent.length < 3) {
      gated.openAll();
      await flush(1);
    }
    await sender.settled();
    expect(gated.mostInFlight).toBe(2);
    expect(held.sent).toEqual([]);
  });
});

describe("a held gateway", () => {
  it("gets nothing sent through it; its pieces stay pending and uncounted while others go out", async () => {
    const mock = new MockGateway({ name: "mock" });
    const other = new MockGateway({ name: "other" });
    const { store, sender } = setUp([mock, other]);
    sender.hold("mock");
    await store.outbox.enqueue([piece("mock", "A", "a1"), piece("other", "B", "b1")]);
    sender.start();
    await sender.settled();
    expect(other.textsTo("B")).toEqual(["b1"]);
    expect(mock.sent).toEqual([]);
    expect(await statuses(store, "mock", "A")).toEqual([["pending", 0]]);
    expect(await sender.hasDue()).toBe(false);
  });

  it("makes the sender look again after baseDelayMs, not over and over while its pieces stay due", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 600_000 });
    sender.hold("mock");
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const reads = countReads(store);
    sender.start();
    await sender.settled();
    await flush();
    await vi.advanceTimersByTimeAsync(999);
    expect(reads.due).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await sender.settled();
    expect(reads.due).toHaveLength(2);
  });
});

describe("the next timed look", () => {
  it("comes when the next piece is due, sooner than baseDelayMs when nothing is held", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000 });
    await store.outbox.enqueue([{ ...piece("mock", "A", "a1"), notBefore: Date.now() + 100 }]);
    sender.start();
    await sender.settled();
    await flush();
    expect(mock.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    await sender.settled();
    expect(mock.textsTo("A")).toEqual(["a1"]);
  });

  it("is moved by every pass: a wake in between puts the idle look idlePollMs after that pass", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { idlePollMs: 5_000 });
    const reads = countReads(store);
    sender.start();
    await sender.settled();
    await flush();
    await vi.advanceTimersByTimeAsync(1_000);
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.wake();
    await sender.settled();
    await flush();
    const afterWake = reads.nextDueAt;
    await vi.advanceTimersByTimeAsync(4_000);
    expect(reads.nextDueAt).toBe(afterWake);
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    expect(reads.nextDueAt).toBe(afterWake + 1);
  });

  it("after the store could not say when, comes baseDelayMs later rather than at once", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 600_000 });
    let asked = 0;
    store.outbox.nextDueAt = async () => {
      asked += 1;
      throw new Error("database unreachable");
    };
    sender.start();
    await sender.settled();
    await flush();
    expect(asked).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(asked).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await sender.settled();
    await flush();
    expect(asked).toBe(2);
  });

  it("after the store refused to mark a sent piece, comes baseDelayMs later: the piece is not sent over and over", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, outcomes } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 600_000 });
    store.outbox.markSent = async () => {
      throw new Error("database unreachable");
    };
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await sender.settled();
    await flush();
    expect(mock.textsTo("A")).toEqual(["a1"]);
    await vi.advanceTimersByTimeAsync(999);
    await flush();
    expect(mock.textsTo("A")).toEqual(["a1"]);
    await vi.advanceTimersByTimeAsync(1);
    await sender.settled();
    await flush();
    // Tried again (the platform's idempotency key makes the second send a no-op there).
    expect(mock.textsTo("A")).toEqual(["a1", "a1"]);
    expect(outcomes).toEqual([
      ["mock", "retry"],
      ["mock", "retry"],
    ]);
  });

  // A pass the store failed makes only the next timed look wait: once a later pass went through,
  // the look comes when the next piece is due, however the failed pass ended.
  const failedPassEndings: [string, (sender: Setup["sender"], store: Setup["store"]) => Promise<void>][] = [
    [
      "a wake came during the failed pass",
      async (sender, store) => {
        failFirstRead(store, () => sender.wake());
        sender.start();
        await sender.settled();
      },
    ],
    [
      "a wake came while the failed pass read the next due time",
      async (sender, store) => {
        failFirstRead(store);
        const nextDueAt = store.outbox.nextDueAt.bind(store.outbox);
        let woken = false;
        store.outbox.nextDueAt = () => {
          if (!woken) {
            woken = true;
            sender.wake();
          }
          return nextDueAt();
        };
        sender.start();
        await flushUntil(() => woken, "the look after the failed pass");
        await sender.settled();
      },
    ],
    [
      "the sender was stopped during the failed pass and started again",
      async (sender, store) => {
        let stopped: Promise<void> | undefined;
        failFirstRead(store, () => {
          stopped = sender.stop();
        });
        sender.start();
        await sender.settled();
        await stopped;
        sender.start();
        await sender.settled();
      },
    ],
  ];

  it.each(failedPassEndings)(
    "after a failed pass (%s) and one that went through, comes when the next piece is due, not baseDelayMs later",
    async (_, failThenPass) => {
      const mock = new MockGateway({ name: "mock" });
      const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 600_000 });
      await store.outbox.enqueue([{ ...piece("mock", "A", "a1"), notBefore: Date.now() + 100 }]);
      await failThenPass(sender, store);
      await flush();
      expect(mock.sent).toEqual([]);
      await vi.advanceTimersByTimeAsync(100);
      await sender.settled();
      expect(mock.textsTo("A")).toEqual(["a1"]);
    },
  );

  it("is an unref'd timer: an idle sender does not keep the process alive", async () => {
    vi.useRealTimers();
    const timers = vi.spyOn(globalThis, "setTimeout");
    try {
      const mock = new MockGateway({ name: "mock" });
      const { sender } = setUp([mock], { idlePollMs: 600_000 });
      sender.start();
      await sender.settled();
      // The look is armed for idlePollMs after a Date.now() read a moment before: a ms or two less.
      const idleLook = (call: unknown[]) => Number(call[1]) > 590_000;
      await flushUntil(() => timers.mock.calls.some(idleLook), "the idle look armed");
      const index = timers.mock.calls.findIndex(idleLook);
      const timer = timers.mock.results[index]?.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
    } finally {
      timers.mockRestore();
    }
  });
});

describe("a stopped sender", () => {
  it("has no timed look left that would fire after the stop", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([mock], { idlePollMs: 5_000 });
    const reads = countReads(store);
    sender.start();
    await sender.settled();
    await flush();
    await sender.stop();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(elsewhere).toEqual([]);
    expect(reads.due).toHaveLength(1);
  });

  it("arms nothing when it stops while reading the next due time", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([mock], { idlePollMs: 5_000 });
    let answer: (at: number | undefined) => void = () => {};
    store.outbox.nextDueAt = () => new Promise((resolve) => (answer = resolve));
    sender.start();
    await sender.settled();
    await flush();
    await sender.stop();
    answer(undefined);
    await flush();
    // No timed look armed: one would only find the sender stopped, but keeps a timer after stop().
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(elsewhere).toEqual([]);
  });

  it("does not read the store again once stopped during a send (the store may be closed next)", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { store, sender } = setUp([gated]);
    const reads = countReads(store);
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await flushUntil(() => gated.inFlight === 1, "the send in flight");
    const stopped = sender.stop();
    gated.openAll();
    await stopped;
    await flush();
    expect(reads.nextDueAt).toBe(0);
    expect(await statuses(store, "mock", "A")).toEqual([["sent", 1]]);
  });

  it("leaves no timer behind after a send, not even the send's own time limit", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock]);
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await sender.settled();
    await flush();
    await sender.stop();
    await flush();
    expect(mock.textsTo("A")).toEqual(["a1"]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("a failed send", () => {
  it("is tried again baseDelayMs later (plus at most 20% jitter)", async () => {
    const mock = new MockGateway({ name: "mock" });
    mock.failures.push({ status: 500 });
    const { store, sender } = setUp([mock], { baseDelayMs: 200 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const failedAt = Date.now();
    sender.start();
    await sender.settled();
    const [row] = await store.outbox.list("mock", "A");
    expect(row?.attempts).toBe(1);
    expect(row?.nextAttemptAt).toBeGreaterThanOrEqual(failedAt + 200);
    expect(row?.nextAttemptAt).toBeLessThanOrEqual(failedAt + 240);
  });
});

describe("a platform call that does not settle", () => {
  it("is given up after sendTimeoutMs and retried, the log saying how long it waited", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { store, sender, lines, outcomes } = setUp([gated], { sendTimeoutMs: 50, baseDelayMs: 10_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await flushUntil(() => gated.inFlight === 1, "the send in flight");
    await vi.advanceTimersByTimeAsync(50);
    await sender.settled();
    expect(outcomes).toEqual([["mock", "retry"]]);
    expect(lines.filter((l) => l.level === 40)).toMatchObject([
      { msg: "sending failed; will retry", err: "the platform call did not settle within 50 ms" },
    ]);
    expect(await statuses(store, "mock", "A")).toEqual([["pending", 1]]);
  });
});
