// A due read refused for want of a role (role_not_held, outbox-fence.ts): another instance holds this
// one's outbox roles and its link has not noticed yet. Not this sender's role now: it stops reading
// (before, it logged and read again every baseDelayMs until the link noticed, 10-20 s), hasDue()
// answers false instead of throwing (session-work.ts's idle path, GatewaySession.idle()), and a wake
// is passed on to whoever sends. Its roles given again (`restrict`, once the link noticed), it reads.
import { describe, expect, it, vi } from "vitest";
import { MockGateway } from "../src/testing/index.js";
import { flush, piece, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();

useFakeClock();

/** A store whose due reads are refused (as PostgreSQL's fenced read is) while `refusing.now`; counts them. */
function refusingStore(store: ReturnType<typeof setUp>["store"]) {
  const refusing = { now: true, reads: 0, refused: 0 };
  const due = store.outbox.due.bind(store.outbox);
  store.outbox.due = async (...args) => {
    refusing.reads += 1;
    if (refusing.now) {
      refusing.refused += 1;
      throw Object.assign(new Error("the outbox roles are no longer all held"), { code: "role_not_held" });
    }
    return due(...args);
  };
  return refusing;
}

describe("a sender whose due read is refused for want of a role", () => {
  it("reads no more (none in 30 s; before, one every baseDelayMs), answers hasDue false without throwing, and passes wakes on", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, lines, elsewhere } = setUp([mock], { baseDelayMs: 1_000, idlePollMs: 5_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const refusing = refusingStore(store);
    sender.restrict(() => true);
    sender.start();
    await sender.settled();
    await flush();
    expect(refusing.reads).toBe(1);
    await vi.advanceTimersByTimeAsync(30_000);
    await flush();
    expect(refusing.reads).toBe(1);
    await expect(sender.hasDue()).resolves.toBe(false);
    expect(refusing.reads).toBe(1);
    const passedOn = elsewhere.length;
    sender.wake();
    await sender.settled();
    expect(elsewhere.length).toBe(passedOn + 1);
    expect(refusing.reads).toBe(1);
    expect(mock.sent).toEqual([]);
    expect(lines.filter((l) => String(l.msg).includes("another instance holds"))).toHaveLength(1);
    expect(lines.filter((l) => l.level === 50)).toEqual([]);
  });

  it("answers hasDue false when its own read is the one refused", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const refusing = refusingStore(store);
    await expect(sender.hasDue()).resolves.toBe(false);
    expect(refusing.refused).toBe(1);
  });

  it("reads and sends again once its roles are given again (restrict)", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const refusing = refusingStore(store);
    sender.start();
    await sender.settled();
    expect(refusing.refused).toBe(1);
    refusing.now = false;
    sender.restrict(undefined);
    sender.wake();
    await sender.settled();
    expect(mock.textsTo("A")).toEqual(["a1"]);
    await expect(sender.hasDue()).resolves.toBe(false);
  });

  it("is not silenced by the refusal of a read begun before its roles were given again", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { baseDelayMs: 1_000 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    const due = store.outbox.due.bind(store.outbox);
    let answer: (() => void) | undefined;
    let first = true;
    store.outbox.due = async (...args) => {
      if (!first) return due(...args);
      first = false;
      // The old roles' read: refused, but only after the roles were given again.
      await new Promise<void>((resolve) => {
        answer = resolve;
      });
      throw Object.assign(new Error("refused"), { code: "role_not_held" });
    };
    const read = sender.hasDue();
    await flush();
    sender.restrict(undefined);
    answer?.();
    await expect(read).resolves.toBe(false);
    await expect(sender.hasDue()).resolves.toBe(true);
  });
});
