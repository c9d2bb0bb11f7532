// The outbox sender when parts are missing or odd: an observer with one hook, no onCredentials, no
// drafts on a streaming gateway, a text piece without text, a request id that is not a string, an
// error that is not the gateway's; and what it reports then (outcome, duration, dead-letter lines).
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SendOptions, SendOutcome } from "../src/index.js";
import { MockGateway } from "../src/testing/index.js";
import { GatedGateway, piece, request, statuses, useSender } from "./outbox-harness.js";
import { until } from "./session-harness.js";

const setUp = useSender();

afterEach(() => {
  vi.useRealTimers();
});

describe("an observer", () => {
  it("with only onSent still sees every send settle", async () => {
    const mock = new MockGateway({ name: "mock" });
    const outcomes: SendOutcome[] = [];
    const { store, sender } = setUp([mock], {}, { observer: { onSent: (_g, o) => outcomes.push(o) } });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await until(() => outcomes.length === 1, "the send settled");
    expect(outcomes).toEqual(["sent"]);
    expect(mock.textsTo("A")).toEqual(["a1"]);
  });

  it("with only onSending does not keep a piece from being marked sent", async () => {
    const mock = new MockGateway({ name: "mock" });
    const began: string[] = [];
    const { store, sender, lines } = setUp([mock], {}, { observer: { onSending: (g) => began.push(g) } });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await until(() => mock.textsTo("A").length === 1, "sent");
    await sender.settled();
    expect(began).toEqual(["mock"]);
    expect(await statuses(store, "mock", "A")).toEqual([["sent", 1]]);
    expect(lines).toEqual([]);
  });

  it("is told how long a send took, in seconds", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
    const gated = new GatedGateway({ name: "mock" });
    const took: number[] = [];
    const { store, sender } = setUp([gated], {}, { observer: { onSent: (_g, _o, s) => took.push(s) } });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    // The clock does not start at zero: the duration is a difference, not a reading.
    await vi.advanceTimersByTimeAsync(10_000);
    sender.start();
    for (let i = 0; i < 200 && gated.inFlight === 0; i++) await new Promise((r) => setImmediate(r));
    await vi.advanceTimersByTimeAsync(1_500);
    gated.openAll();
    await sender.settled();
    expect(took).toEqual([1.5]);
  });

  it("hears 'retry' for a send whose platform call went out but whose mark the store refused", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender, outcomes } = setUp([mock]);
    store.outbox.markSent = async () => {
      throw new Error("database unreachable");
    };
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await until(() => outcomes.length > 0, "the send settled");
    await sender.stop();
    expect(outcomes[0]).toEqual(["mock", "retry"]);
    expect(await statuses(store, "mock", "A")).toEqual([["pending", 0]]);
  });
});

describe("a sender without onCredentials", () => {
  it("holds the gateway whose credentials were rejected all the same", async () => {
    const mock = new MockGateway({ name: "mock" });
    mock.failures.push({ status: 401 });
    const { store, sender, outcomes } = setUp([mock], {}, { onCredentials: false });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await until(() => outcomes.length === 1, "the refused send");
    await sender.settled();
    expect(outcomes).toEqual([["mock", "held"]]);
    expect(await statuses(store, "mock", "A")).toEqual([["pending", 0]]);
    expect(await sender.hasDue()).toBe(false);
  });
});

describe("a piece", () => {
  it("with a draft key, on a streaming gateway of a sender without drafts, goes out as a plain message", async () => {
    const mock = new MockGateway({ name: "mock", stream: {} });
    const { store, sender, outcomes, lines } = setUp([mock]);
    await store.outbox.enqueue([
      {
        gateway: "mock",
        thread: "A",
        idemKey: "k1",
        kind: "text",
        payload: { text: "reply", draft: "draft:in1" },
      },
      piece("mock", "B", "plain"),
    ]);
    sender.start();
    await until(() => outcomes.length === 2, "both sends settled");
    await sender.settled();
    expect(outcomes).toEqual([
      ["mock", "sent"],
      ["mock", "sent"],
    ]);
    expect(mock.streamCalls).toEqual([]);
    expect(mock.textsTo("A")).toEqual(["reply"]);
    expect(mock.textsTo("B")).toEqual(["plain"]);
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
  });

  it("of text without any text sends an empty message", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock]);
    await store.outbox.enqueue([{ gateway: "mock", thread: "A", idemKey: "k1", kind: "text", payload: {} }]);
    sender.start();
    await until(() => mock.sent.length === 1, "sent");
    expect(mock.textsTo("A")).toEqual([""]);
  });

  it("whose request id is not a string hands the platform no request id", async () => {
    const mock = new MockGateway({ name: "mock" });
    const seen: (SendOptions | undefined)[] = [];
    const send = mock.send.bind(mock);
    mock.send = async (thread, text, options) => {
      seen.push(options);
      return send(thread, text, options);
    };
    const { store, sender } = setUp([mock]);
    await store.outbox.enqueue([
      { gateway: "mock", thread: "A", idemKey: "k1", kind: "text", payload: { text: "t", requestId: 42 } },
    ]);
    sender.start();
    await until(() => seen.length === 1, "sent");
    expect(seen).toStrictEqual([{ idempotencyKey: "k1", attempt: 1 }]);
  });
});

describe("dead letters", () => {
  it("after the last attempt failing with an error that is not the gateway's, log how many attempts", async () => {
    const mock = new MockGateway({ name: "mock" });
    mock.send = async () => {
      throw new Error("socket hang up");
    };
    const { store, sender, lines } = setUp([mock], { maxAttempts: 1 });
    await store.outbox.enqueue([piece("mock", "A", "a1")]);
    sender.start();
    await until(async () => (await statuses(store, "mock", "A"))[0]?.[0] === "dead", "dead");
    expect(lines.filter((l) => l.level === 50)).toMatchObject([
      { msg: "outbox piece dead-lettered after 1 attempts", err: "socket hang up", attempt: 1 },
    ]);
  });

  it("of an approval on a gateway that cannot ask say so", async () => {
    const mute = new MockGateway({ name: "mock" });
    Object.assign(mute, { requestDecision: undefined });
    const { store, sender, lines } = setUp([mute]);
    await store.outbox.enqueue([
      { gateway: "mock", thread: "A", idemKey: "r1:render", kind: "approval", payload: request("r1") },
    ]);
    sender.start();
    await until(async () => (await statuses(store, "mock", "A"))[0]?.[0] === "dead", "dead");
    expect(lines.filter((l) => l.level === 50)).toMatchObject([
      {
        msg: "outbox piece dead-lettered: the platform refused it for good",
        err: "gateway has no requestDecision",
      },
    ]);
  });
});
