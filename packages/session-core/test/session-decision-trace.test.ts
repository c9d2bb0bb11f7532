// A decision keeps the message's trace (read from the trace SDK's in-memory exporter): the run the
// approval continues and the platform's "decided" send are in the trace of the message whose turn
// asked, though the decision arrives in a trace of its own (a button press's webhook request).
import * as api from "@opentelemetry/api";
import { useOpenTelemetry as traceRuns } from "@agentsvc/agent-core";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";
import { useSpans } from "./span-harness.js";

const T = "room-trace";
const exporter = useSpans();
const openRig = useRig();

// The server's set-up: async context across awaits, and agent-core's run spans on.
beforeAll(() => {
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  traceRuns(api);
});
afterAll(() => api.context.disable());

const named = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);

describe("a decision on a gateway", () => {
  it("continues the run and sends the decided notice in the trace of the message that asked", async () => {
    const r = await openRig();
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => r.gateway.decisionRequests.length > 0, "the decision request");
    const request = r.gateway.decisionRequests[0];
    if (!request) throw new Error("no decision request");
    // The press comes in with its own request span, in another trace.
    const press = api.trace.getTracer("test").startSpan("POST /webhooks/mock");
    const outcome = await api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, press), () =>
      r.gateway.decide(request.requestId, "approve", "mock:alice"),
    );
    press.end();
    expect(outcome).toMatchObject({ ok: true });
    await r.session.idle();
    await until(() => r.gateway.decided.length > 0, "the decided notice");

    const [inbound] = named("gateway.inbound mock");
    const traceId = inbound?.spanContext().traceId;
    expect(traceId).toBeDefined();
    expect(press.spanContext().traceId).not.toBe(traceId);
    const runs = named("invoke_agent root");
    // The segment that asked and the one the approval continued.
    expect(runs).toHaveLength(2);
    expect(runs.map((s) => s.spanContext().traceId)).toEqual([traceId, traceId]);
    expect(runs[1]?.parentSpanContext?.spanId).toBe(runs[0]?.spanContext().spanId);
    expect(runs[1]?.links.map((l) => l.context.spanId)).toEqual([press.spanContext().spanId]);
    const sends = named("send mock");
    const decided = sends.filter((s) => s.attributes["agentsvc.outbox.kind"] === "decided");
    expect(decided).toHaveLength(1);
    expect(decided[0]?.spanContext().traceId).toBe(traceId);
    // Every send of the conversation (the card, the decided notice, the continued reply) is in it.
    expect(new Set(sends.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
  });
});
