// The outbox sender's other paths: pieces it cannot send (gateway gone, no way to ask), decided
// notices, a gateway held for its credentials, a store that cannot answer, and what it reports.
import { describe, expect, it } from "vitest";
import { MockGateway } from "../src/testing/index.js";
import { piece, request, statuses, useSender } from "./outbox-harness.js";
import { until } from "./session-harness.js";

const setUp = useSender();

describe("outbox pieces that cannot be sent", () => {
  it("dead-letters a piece whose gateway is not registered, logging its gateway, and sends the others", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, lines } = setUp([mock]);
    const reasons: string[] = [];
    const markDead = store.outbox.markDead.bind(store.outbox);
    store.outbox.markDead = (id, reason) => {
      reasons.push(reason);
      return markDead(id, reason);
    };
    await store.outbox.enqueue([piece("gone", "A", "g1"), piece("mock", "B", "m1")]);
    sender.start();
    await until(() => mock.textsTo("B").length === 1, "the registered gateway's piece");
    await sender.settled();
    expect((await store.outbox.list("gone", "A")).map((r) => r.status)).toEqual(["dead"]);
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ gateway: "gone", thread: "A" });
    expect(String(errors[0]?.msg)).toContain("not registered");
    // The reason `agentsvc outbox list` shows for the dead letter.
    expect(reasons).toEqual(['gateway "gone" is not registered']);
  });

  it("dead-letters an approval request after one attempt on a gateway that cannot ask", async () => {
    const mute = new MockGateway({ name: "mock" });
    Object.assign(mute, { requestDecision: undefined });
    const { store, sender, outcomes } = setUp([mute]);
    await store.outbox.enqueue([
      { gateway: "mock", thread: "A", idemKey: "r1:render", kind: "approval", payload: request("r1") },
    ]);
    sender.start();
    await until(() => outcomes.length === 1, "one attempt");
    await sender.settled();
    expect(outcomes).toEqual([["mock", "dead"]]);
    expect(await statuses(store, "mock", "A")).toEqual([["dead", 1]]);
  });
});

describe("decided notices", () => {
  it("tell the platform which message showed the request, so it can update that message", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock]);
    await store.outbox.enqueue([
      { gateway: "mock", thread: "A", idemKey: "r1:render", kind: "approval", payload: request("r1") },
      {
        gateway: "mock",
        thread: "A",
        idemKey: "r1:decided",
        kind: "decided",
        payload: { requestId: "r1", decision: "approve", decidedBy: "user-1" },
      },
    ]);
    sender.start();
    await until(() => mock.decided.length === 1, "the decided notice");
    await sender.settled();
    expect(mock.decided[0]).toMatchObject({ requestId: "r1", requestMessageId: "mock-card-1" });
    expect(await statuses(store, "mock", "A")).toEqual([
      ["sent", 1],
      ["sent", 1],
    ]);
  });

  it("name the message of their own request, not of another piece earlier in the thread", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock]);
    await store.outbox.enqueue([
      piece("mock", "A", "before"),
      { gateway: "mock", thread: "A", idemKey: "r1:render", kind: "approval", payload: request("r1") },
      {
        gateway: "mock",
        thread: "A",
        idemKey: "r1:decided",
        kind: "decided",
        payload: { requestId: "r1", decision: "approve", decidedBy: "user-1" },
      },
    ]);
    sender.start();
    await until(() => mock.decided.length === 1, "the decided notice");
    await sender.settled();
    const [text, card] = await store.outbox.list("mock", "A");
    expect(card?.platformId).not.toBe(text?.platformId);
    expect(mock.decided[0]?.requestMessageId).toBe(card?.platformId);
  });

  it("go out without a message to update when their request was not shown in this thread", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, outcomes } = setUp([mock]);
    await store.outbox.enqueue([
      piece("mock", "A", "before"),
      {
        gateway: "mock",
        thread: "A",
        idemKey: "r1:decided",
        kind: "decided",
        payload: { requestId: "r1", decision: "reject", decidedBy: "user-1" },
      },
    ]);
    sender.start();
    await until(() => mock.decided.length === 1, "the decided notice");
    await sender.settled();
    expect(mock.decided).toEqual([{ requestId: "r1", decision: "reject", decidedBy: "user-1" }]);
    expect(outcomes).toEqual([
      ["mock", "sent"],
      ["mock", "sent"],
    ]);
  });

  it("are marked sent on a platform that has nothing to update", async () => {
    const plain = new MockGateway({ name: "mock" });
    Object.assign(plain, { onDecided: undefined });
    const { store, sender, outcomes } = setUp([plain]);
    await store.outbox.enqueue([
      {
        gateway: "mock",
        thread: "A",
        idemKey: "r1:decided",
        kind: "decided",
        payload: { requestId: "r1", decision: "approve", decidedBy: "user-1" },
      },
    ]);
    sender.start();
    await until(() => outcomes.length === 1, "one attempt");
    expect(outcomes).toEqual([["mock", "sent"]]);
    expect(await statuses(store, "mock", "A")).toEqual([["sent", 1]]);
  });
});

describe("a gateway whose credentials were rejected", () => {
  it("holds its pieces uncounted while another gateway's go out, even when its due pieces fill the first page", async () => {
    const held = new MockGateway({ name: "held" });
    held.failures.push({ status: 401 });
    const other = new MockGateway({ name: "other" });
    const { store, sender, credentials, outcomes } = setUp([held, other], { concurrency: 1 });
    await store.outbox.enqueue([
      piece("held", "A1", "h1"),
      piece("held", "A2", "h2"),
      piece("held", "A3", "h3"),
      piece("held", "A4", "h4"),
      piece("other", "B", "o1"),
    ]);
    sender.start();
    await until(() => other.textsTo("B").length === 1, "the other gateway's piece");
    await sender.settled();
    expect(credentials).toEqual(["held"]);
    expect(held.attempts).toBe(1);
    expect(outcomes).toEqual([
      ["held", "held"],
      ["other", "sent"],
    ]);
    for (const thread of ["A1", "A2", "A3", "A4"])
      expect(await statuses(store, "held", thread)).toEqual([["pending", 0]]);
    expect(await sender.hasDue()).toBe(false);
  });

  it("is reported once when several of its sends are refused at the same time", async () => {
    const held = new MockGateway({ name: "held" });
    held.failures.push({ status: 401 }, { status: 401 });
    const { store, sender, credentials } = setUp([held], { concurrency: 2 });
    await store.outbox.enqueue([piece("held", "A1", "h1"), piece("held", "A2", "h2")]);
    sender.start();
    await until(() => held.attempts === 2, "both refused");
    await sender.settled();
    expect(credentials).toEqual(["held"]);
    expect(await statuses(store, "held", "A1")).toEqual([["pending", 0]]);
    expect(await statuses(store, "held", "A2")).toEqual([["pending", 0]]);
  });
});

describe("the sender's own state", () => {
  it("keeps looking for due pieces while the store cannot say when the next one is due", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, lines } = setUp([mock], { baseDelayMs: 20, idlePollMs: 600_000 });
    store.outbox.nextDueAt = async () => {
      throw new Error("database unreachable");
    };
    sender.start();
    await sender.settled();
    // Written behind the sender's back: only its next look finds it.
    await store.outbox.enqueue([piece("mock", "A", "late")]);
    await until(() => mock.textsTo("A").length === 1, "the piece found by the next look", 5_000);
    expect(lines.find((l) => l.msg === "outbox: cannot read the next due time")).toMatchObject({
      level: 40,
      err: "database unreachable",
    });
  });

  it("logs a store that fails during a pass, keeps the piece pending and sends it at the next look", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, lines } = setUp([mock], { baseDelayMs: 20 });
    const due = store.outbox.due.bind(store.outbox);
    let failures = 1;
    store.outbox.due = async (now, limit) => {
      if (failures-- > 0) throw new Error("database unreachable");
      return due(now, limit);
    };
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await sender.settled();
    expect(mock.sent).toEqual([]);
    expect(await statuses(store, "mock", "A")).toEqual([["pending", 0]]);
    expect(lines.filter((l) => l.level === 50)).toMatchObject([
      { msg: "outbox: the store failed while sending", err: "database unreachable" },
    ]);
    await until(() => mock.textsTo("A").length === 1, "the piece sent at the next look");
  });

  it("reports each send as it begins and how it settled", async () => {
    const mock = new MockGateway({ name: "mock" });
    mock.failures.push({ status: 500 });
    const { store, sender, sending, outcomes } = setUp([mock], { baseDelayMs: 10, maxDelayMs: 10 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await until(() => mock.textsTo("A").length === 1, "sent on the second attempt");
    await sender.settled();
    expect(sending).toEqual(["mock", "mock"]);
    expect(outcomes).toEqual([
      ["mock", "retry"],
      ["mock", "sent"],
    ]);
  });

  it("sends nothing once stopped, and a wake then is passed on to whoever sends instead", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, elsewhere } = setUp([mock]);
    sender.start();
    await sender.settled();
    expect(elsewhere).toEqual([]);
    await sender.stop();
    await store.outbox.enqueue([piece("mock", "A", "after stop")]);
    sender.wake();
    await sender.settled();
    expect(elsewhere).toEqual([1]);
    expect(mock.sent).toEqual([]);
    expect(await statuses(store, "mock", "A")).toEqual([["pending", 0]]);
  });
});
