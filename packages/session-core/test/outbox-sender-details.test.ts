// What each send carries and leaves behind: its span in the turn's trace (outcome, the platform's
// status and retry-after), the piece's meta, request id, idempotency key and attempt number, and a
// streamed reply's draft finished in place and forgotten once sent.
import * as api from "@opentelemetry/api";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayRegistry, type SendOptions } from "../src/index.js";
import { OutboxSender } from "../src/outbox-sender.js";
import { Previews } from "../src/streaming.js";
import { createMemorySessionStore, MockGateway } from "../src/testing/index.js";
import { until } from "./session-harness.js";
import { useSpans } from "./span-harness.js";

const exporter = useSpans();

let sender: OutboxSender | undefined;
afterEach(async () => {
  await sender?.stop();
  sender = undefined;
});

function setUp(gateway: MockGateway, options: { drafts?: boolean } = {}) {
  const store = createMemorySessionStore();
  const registry = new GatewayRegistry();
  registry.register(gateway);
  const logger = pino({ level: "silent" });
  const drafts = options.drafts ? new Previews(store, () => logger) : undefined;
  sender = new OutboxSender({
    store,
    registry,
    loggerFor: () => logger,
    logger,
    options: { baseDelayMs: 10, maxDelayMs: 10 },
    ...(drafts ? { drafts } : {}),
  });
  return { store, sender };
}

/** Every send's options, as the platform call received them. */
function recordOptions(gateway: MockGateway): SendOptions[] {
  const seen: SendOptions[] = [];
  const send = gateway.send.bind(gateway);
  gateway.send = async (thread, text, options) => {
    if (options) seen.push(options);
    return send(thread, text, options);
  };
  return seen;
}

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";

/** A send's span as the test reads it: what every attempt of the text piece `id` carries, and its outcome's extras. */
function sendSpan(
  id: number | undefined,
  attempt: number,
  outcome: string,
  extra: { attributes?: Record<string, unknown>; status?: api.SpanStatusCode; events?: unknown[] } = {},
) {
  return {
    kind: api.SpanKind.PRODUCER,
    trace: TRACE,
    parent: PARENT,
    attributes: {
      "agentsvc.gateway": "mock",
      "agentsvc.outbox.id": id,
      "agentsvc.outbox.kind": "text",
      "agentsvc.outbox.attempt": attempt,
      "agentsvc.outbox.outcome": outcome,
      ...extra.attributes,
    },
    status: extra.status ?? api.SpanStatusCode.UNSET,
    events: extra.events ?? [],
  };
}

describe("the span of each send", () => {
  it("is a producer span in the turn's trace; a refused attempt records status, retry-after, outcome and an error, the next one its success", async () => {
    const mock = new MockGateway({ name: "mock" });
    mock.failures.push({ status: 429, retryAfterMs: 20 });
    const { store, sender } = setUp(mock);
    const [id] = await store.outbox.enqueue([
      {
        gateway: "mock",
        thread: "A",
        idemKey: "k1",
        kind: "text",
        payload: { text: "hello" },
        traceparent: `00-${TRACE}-${PARENT}-01`,
      },
    ]);
    sender.start();
    await until(() => mock.textsTo("A").length === 1, "sent on the second attempt");
    await sender.settled();
    const spans = exporter.getFinishedSpans().filter((s) => s.name === "send mock");
    expect(
      spans.map((s) => ({
        kind: s.kind,
        trace: s.spanContext().traceId,
        parent: s.parentSpanContext?.spanId,
        attributes: s.attributes,
        status: s.status.code,
        events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
      })),
    ).toEqual([
      sendSpan(id, 1, "retry", {
        attributes: { "http.response.status_code": 429, "agentsvc.send.retry_after_ms": 20 },
        status: api.SpanStatusCode.ERROR,
        events: [
          { name: "send failed", attributes: { "exception.message": "mock gateway: platform answered 429" } },
          {
            name: "exception",
            attributes: expect.objectContaining({ "exception.message": "send retry" }),
          },
        ],
      }),
      sendSpan(id, 2, "sent"),
    ]);
  });
});

describe("what a send hands the platform", () => {
  it("the piece's meta and request id, its idempotency key and the attempt number, the same key on every attempt", async () => {
    const mock = new MockGateway({ name: "mock" });
    mock.failures.push({ status: 500 });
    const seen = recordOptions(mock);
    const { store, sender } = setUp(mock);
    await store.outbox.enqueue([
      {
        gateway: "mock",
        thread: "A",
        idemKey: "r9:text",
        kind: "text",
        payload: { text: "Reply yes or no", meta: { channel: "C1" }, requestId: "r9" },
      },
    ]);
    sender.start();
    await until(() => mock.textsTo("A").length === 1, "sent on the second attempt");
    await sender.settled();
    expect(seen).toEqual([
      { idempotencyKey: "r9:text", attempt: 1, meta: { channel: "C1" }, requestId: "r9" },
      { idempotencyKey: "r9:text", attempt: 2, meta: { channel: "C1" }, requestId: "r9" },
    ]);
  });

  it("no meta and no request id when the piece has none (not empty ones)", async () => {
    const mock = new MockGateway({ name: "mock" });
    const seen = recordOptions(mock);
    const { store, sender } = setUp(mock);
    await store.outbox.enqueue([
      { gateway: "mock", thread: "A", idemKey: "k", kind: "text", payload: { text: "hi" } },
    ]);
    sender.start();
    await until(() => mock.textsTo("A").length === 1, "sent");
    expect(seen).toStrictEqual([{ idempotencyKey: "k", attempt: 1 }]);
  });
});

describe("a streamed reply's draft", () => {
  const draft = "draft:in7";

  it("is finished in place by the reply's first piece, and forgotten once that piece is sent", async () => {
    const mock = new MockGateway({ name: "mock", stream: {} });
    const { store, sender } = setUp(mock, { drafts: true });
    await store.gatewayState.set("mock", draft, { thread: "A", ids: { draft: "d-41" }, at: 1 });
    await store.outbox.enqueue([
      {
        gateway: "mock",
        thread: "A",
        idemKey: "k1",
        kind: "text",
        payload: { text: "the whole reply", draft },
      },
    ]);
    sender.start();
    await until(() => mock.textsTo("A").length === 1, "the reply");
    await sender.settled();
    expect(mock.streamCalls).toEqual([
      { seq: 1, kind: "finish", thread: "A", draft: "d-41", text: "the whole reply" },
    ]);
    expect(await store.gatewayState.get("mock", draft)).toBeUndefined();
  });

  it("carried by a piece (finalised before an approval) is finished without looking anything up", async () => {
    const mock = new MockGateway({ name: "mock", stream: {} });
    const { store, sender } = setUp(mock, { drafts: true });
    await store.outbox.enqueue([
      {
        gateway: "mock",
        thread: "A",
        idemKey: "k1",
        kind: "text",
        payload: { text: "so far", draftIds: { draft: "d-7" } },
      },
    ]);
    sender.start();
    await until(() => mock.textsTo("A").length === 1, "the text so far");
    expect(mock.streamCalls).toEqual([{ seq: 1, kind: "finish", thread: "A", draft: "d-7", text: "so far" }]);
  });

  it("stays until its piece is sent: a refused attempt keeps it for the next one", async () => {
    const mock = new MockGateway({ name: "mock", stream: {} });
    mock.failures.push({ status: 500 });
    const { store, sender } = setUp(mock, { drafts: true });
    await store.gatewayState.set("mock", draft, { thread: "A", ids: { draft: "d-41" }, at: 1 });
    await store.outbox.enqueue([
      { gateway: "mock", thread: "A", idemKey: "k1", kind: "text", payload: { text: "reply", draft } },
    ]);
    sender.start();
    await until(() => mock.textsTo("A").length === 1, "sent on the second attempt");
    await sender.settled();
    expect(mock.streamCalls.map((c) => [c.kind, c.draft])).toEqual([
      ["finish", "d-41"],
      ["finish", "d-41"],
    ]);
    expect(await store.gatewayState.get("mock", draft)).toBeUndefined();
  });

  it("on a platform that cannot finish drafts, the piece is sent as a new message", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp(mock, { drafts: true });
    await store.gatewayState.set("mock", draft, { thread: "A", ids: { draft: "d-41" }, at: 1 });
    await store.outbox.enqueue([
      { gateway: "mock", thread: "A", idemKey: "k1", kind: "text", payload: { text: "reply", draft } },
    ]);
    sender.start();
    await until(() => mock.textsTo("A").length === 1, "the reply");
    expect(mock.streamCalls).toEqual([]);
  });
});
