// What an operator sees of the busy policy: a steered message is an event on the turn's span
// (read from the trace SDK's in-memory exporter), and an interrupted run's cancel names its reason.
import { describe, expect, it } from "vitest";
import { until, useRig } from "./session-harness.js";
import { useSpans } from "./span-harness.js";

const T = "chat-7";
const exporter = useSpans();

const openRig = useRig();

describe("steer", () => {
  it("records the steered message as an event on the running turn's span, naming its inbox record", async () => {
    const r = await openRig({ gatewaySession: { policy: "steer" } });
    await r.gateway.inject({ thread: T, text: "use wait_gate first" });
    await until(() => r.gates.calls.length === 1, "the turn at its gate");
    const steered = await r.gateway.inject({ thread: T, text: "and also this" });
    if (!steered.accepted) throw new Error("not accepted");
    r.gates.openAll();
    await r.session.idle();
    const turns = exporter.getFinishedSpans().filter((s) => s.name === "turn mock");
    const events = turns.flatMap((s) => s.events.map((e) => ({ name: e.name, attributes: e.attributes })));
    expect(events).toEqual([
      { name: "message steered into the turn", attributes: { "agentsvc.inbox_id": steered.id } },
    ]);
  });
});

describe("interrupt", () => {
  it("cancels the running turn with the reason the run manager logs", async () => {
    const cancelled: unknown[] = [];
    const runLogger = {
      info: (obj: object, msg?: string) => {
        if (msg === "run cancelled") cancelled.push(obj);
      },
      warn() {},
      error() {},
    };
    const r = await openRig({ gatewaySession: { policy: "interrupt" }, runLogger });
    await r.gateway.inject({ thread: T, text: "use wait_gate first" });
    await until(() => r.gates.calls.length === 1, "the turn at its gate");
    await r.gateway.inject({ thread: T, text: "stop" });
    await until(() => cancelled.length === 1, "the cancel");
    expect(cancelled).toEqual([{ threadId: `gw:mock:${T}`, reason: "interrupted by a new message" }]);
    r.gates.openAll();
    await r.session.idle();
  });
});
