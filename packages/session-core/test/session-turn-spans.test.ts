// What a turn leaves in the trace (read from the trace SDK's in-memory exporter): its span hangs
// under its message's inbound span, names the thread, the record and how the busy policy let it
// start, says how it ended (failed with the run's error; suspended where it waits for a decision),
// and is the parent of its reply's sends; a busy reply and a turn that could not start leave one too.
import { SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { DEFAULT_MAX_STEPS } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";
import { useSpans } from "./span-harness.js";
import { acceptedId, behindRunning, refuseStarts, toolLoop, whileRunning } from "./turn-harness.js";

const T = "chat-9";
const exporter = useSpans();
const openRig = useRig();

const named = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
/** The send spans whose parent is `span`. */
const sendsUnder = (span: ReadableSpan) =>
  named("send mock").filter((s) => s.parentSpanContext?.spanId === idOf(span));

describe("a turn's span", () => {
  it("continues its message's trace, names thread, record and outcomes, and parents its reply's send", async () => {
    const r = await openRig();
    const id = await acceptedId(r, T, "hello");
    await r.session.idle();
    const [inbound] = named("gateway.inbound mock");
    const [turn, ...more] = named("turn mock");
    if (!inbound || !turn) throw new Error("no inbound or turn span");
    expect(more).toEqual([]);
    expect(turn.spanContext().traceId).toBe(inbound.spanContext().traceId);
    expect(turn.parentSpanContext?.spanId).toBe(idOf(inbound));
    expect(turn.attributes).toEqual({
      "agentsvc.gateway": "mock",
      "agentsvc.thread": T,
      "agentsvc.inbox_id": id,
      "agentsvc.policy.outcome": "started",
      "agentsvc.turn.outcome": "completed",
    });
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);
    expect(sendsUnder(turn)).toHaveLength(1);
  });

  it("of a message that waited behind a running turn says it was queued", async () => {
    const r = await openRig({ gatewaySession: { policy: "queue" } });
    const [first, second] = await behindRunning(r, T, "then this", "queued");
    const outcomes = named("turn mock").map((s) => [
      s.attributes["agentsvc.inbox_id"],
      s.attributes["agentsvc.policy.outcome"],
    ]);
    expect(outcomes).toEqual([
      [first, "started"],
      [second, "queued"],
    ]);
  });

  it("of a busy reply says rejected, has no turn outcome, and parents the busy reply's send", async () => {
    const r = await openRig({ gatewaySession: { policy: "reject", busyReply: "Busy." } });
    const [, refused] = await whileRunning(r, T, "and this");
    await until(() => r.gateway.textsTo(T).includes("Busy."), "the busy reply");
    r.gates.openAll();
    await r.session.idle();
    const busy = named("turn mock").filter((s) => s.attributes["agentsvc.inbox_id"] === refused);
    expect(busy.map((s) => s.attributes)).toEqual([
      {
        "agentsvc.gateway": "mock",
        "agentsvc.thread": T,
        "agentsvc.inbox_id": refused,
        "agentsvc.policy.outcome": "rejected",
      },
    ]);
    expect(sendsUnder(busy[0] as ReadableSpan)).toHaveLength(1);
  });

  it("of a turn that could not start ends failed with the error, and parents the failure reply's send", async () => {
    const r = await openRig();
    refuseStarts(r);
    await acceptedId(r, T, "hello");
    await until(() => r.gateway.textsTo(T).length === 1, "the failure reply");
    await r.session.idle();
    const [turn] = named("turn mock");
    if (!turn) throw new Error("the turn's span was not ended");
    expect(turn.status).toEqual({ code: SpanStatusCode.ERROR, message: "the run store refused the run" });
    expect(turn.events.map((e) => e.name)).toEqual(["exception"]);
    expect(sendsUnder(turn)).toHaveLength(1);
  });

  it("of a run that failed ends failed with the run's error", async () => {
    const r = await openRig({ script: toolLoop() });
    r.gates.openAll();
    await acceptedId(r, T, "loop");
    await r.session.idle();
    const [turn] = named("turn mock");
    expect(turn?.attributes["agentsvc.turn.outcome"]).toBe("failed");
    expect(turn?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: `the turn reached maxSteps (${DEFAULT_MAX_STEPS}) model calls`,
    });
  });

  it("of a turn that waits for a decision ends there, suspended", async () => {
    const r = await openRig();
    await acceptedId(r, T, "use delete_file report.txt");
    await until(() => r.session.snapshot("mock", T).pendingRequestId !== undefined, "the open request");
    await until(() => named("turn mock").length === 1, "the turn's span ended");
    expect(named("turn mock")[0]?.attributes["agentsvc.turn.outcome"]).toBe("suspended");
  });
});
