// Whose spend a run is: meterRuns sets the meter's scope from the run's own options, so a gateway
// sender (not the gateway, session-core's userId for every thread) is the user a budget counts.
import {
  defineAgent,
  type MeterKind,
  type MeterScope,
  type ModelMeter,
  RunManager,
} from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { meterRuns } from "../src/spend-runs.js";

function metered() {
  const admitted: [MeterScope, MeterKind][] = [];
  const meter: ModelMeter = {
    admit: async (scope, kind) => {
      admitted.push([scope, kind]);
      return undefined;
    },
    record: () => {},
  };
  const runs = new RunManager({ agent: defineAgent({ name: "bot", model: { provider: "demo" } }) });
  meterRuns(runs, meter);
  return { runs, admitted };
}

describe("meterRuns", () => {
  it("a gateway turn is the sender's (<entry>:<platform id>) on that gateway; a route's turn is its caller's", async () => {
    const { runs, admitted } = metered();
    await runs.start({
      input: "hi",
      userId: "whatsapp",
      conversationId: "15551234567",
      origin: { gateway: "whatsapp", thread: "15551234567", author: { id: "15551234567" } },
    }).done;
    await runs.start({ input: "hi", userId: "anonymous", conversationId: "c1" }).done;
    expect(admitted).toEqual([
      [
        { agent: "bot", userId: "whatsapp:15551234567", conversationId: "15551234567", gateway: "whatsapp" },
        "turn",
      ],
      [{ agent: "bot", userId: "anonymous", conversationId: "c1" }, "turn"],
    ]);
  });

  it("a schedule's tick (author schedule:<name>) is asked for as scheduled", async () => {
    const { runs, admitted } = metered();
    await runs.start({
      input: "daily report",
      userId: "telegram",
      conversationId: "42",
      origin: { gateway: "telegram", thread: "42", author: { id: "schedule:daily" } },
    }).done;
    expect(admitted.map(([, kind]) => kind)).toEqual(["scheduled"]);
  });
});
