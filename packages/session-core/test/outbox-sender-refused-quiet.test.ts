// A sender refused for want of a role (outbox-fence.ts RefusedRoles) is quiet: after the refusal
// it reads nothing from the store at all, neither due pieces nor the next due time, whether the
// refusal came in a pass or in a hasDue() while a timed look was armed; a wake is passed on even
// when it sends every partition (unrestricted); and a restart (stop, start) gives its roles again.
import { describe, expect, it, vi } from "vitest";
import { MockGateway } from "../src/testing/index.js";
import { flush, piece, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();

useFakeClock();

/** Counts the store's due and next-due reads; due reads are refused (role_not_held) while `refusing`. */
function countingStore(store: ReturnType<typeof setUp>["store"]) {
  const reads = { refusing: true, due: 0, nextDue: 0 };
  const due = store.outbox.due.bind(store.outbox);
  const nextDueAt = store.outbox.nextDueAt.bind(store.outbox);
  store.outbox.due = async (...args) => {
    reads.due += 1;
    if (reads.refusing)
      throw Object.assign(new Error("the outbox roles are no longer all held"), { code: "role_not_held" });
    return due(...args);
  };
  store.outbox.nextDueAt = async (...args) => {
    reads.nextDue += 1;
    return nextDueAt(...args);
  };
  return reads;
}

describe("an outbox sender refused for want of a role", () => {
  it("reads neither due pieces nor the next due time after a pass's refused read (no timed look armed)", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 5_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const reads = countingStore(store);
    sender.start();
    await sender.settled();
    await flush();
    await vi.advanceTimersByTimeAsync(30_000);
    await flush();
    expect(reads).toEqual({ refusing: true, due: 1, nextDue: 0 });
    expect(mock.sent).toEqual([]);
  });

  it("reads nothing more once a hasDue() is refused while its timed look was armed", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 5_000 });
    const reads = countingStore(store);
    reads.refusing = false;
    sender.start();
    await sender.settled();
    await flush();
    // Idle: one due read, one next-due read, a look armed for idlePollMs later.
    expect(reads).toEqual({ refusing: false, due: 1, nextDue: 1 });
    reads.refusing = true;
    await expect(sender.hasDue()).resolves.toBe(false);
    await vi.advanceTimersByTimeAsync(30_000);
    await flush();
    expect(reads).toEqual({ refusing: true, due: 2, nextDue: 1 });
  });

  it("passes a wake on to whoever sends when it sends every partition (not restricted)", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 5_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const reads = countingStore(store);
    sender.start();
    await sender.settled();
    const passedOn = elsewhere.length;
    sender.wake();
    await sender.settled();
    expect(elsewhere.length).toBe(passedOn + 1);
    expect(reads.due).toBe(1);
  });

  it("reads and sends again once stopped and started (start gives its roles again)", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 5_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const reads = countingStore(store);
    sender.start();
    await sender.settled();
    expect(reads.due).toBe(1);
    await sender.stop();
    reads.refusing = false;
    sender.start();
    await sender.settled();
    await flush();
    expect(mock.textsTo("A")).toEqual(["a1"]);
  });
});
