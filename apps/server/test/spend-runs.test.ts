// Whose spend a run is: meterRuns sets the meter's scope from the run's own options, so a gateway
// sender (not the gateway, session-core's userId for every thread) is the user a budget counts.
import {
  defineAgent,
  defineTool,
  InMemoryRunStore,
  type MeterKind,
  type MeterScope,
  type ModelMeter,
  RunManager,
} from "@agentsvc/agent-core";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { meterRuns } from "../src/spend-runs.js";

/** A RunStore that counts the reads of a saved run. */
class CountingRunStore extends InMemoryRunStore {
  reads = 0;
  override get(threadId: string) {
    this.reads++;
    return super.get(threadId);
  }
}

/** An agent whose first answer calls an approval-gated tool (the run suspends), then ends. */
function approvingAgent() {
  const send = defineTool({
    name: "send",
    description: "Send money",
    input: v.object({ amount: v.number() }),
    needsApproval: true,
    execute: ({ amount }) => ({ sent: amount }),
  });
  return defineAgent({
    name: "bot",
    tools: [send],
    model: {
      provider: "demo",
      script: [
        { text: "Sending.", toolCalls: [{ name: "send", arguments: { amount: 5 } }] },
        { text: "Sent." },
      ],
    },
  });
}

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

  it("a resume reads the saved run once, and its model calls are the sender's", async () => {
    const admitted: MeterScope[] = [];
    const meter: ModelMeter = {
      admit: async (scope) => {
        admitted.push(scope);
        return undefined;
      },
      record: () => {},
    };
    const runStore = new CountingRunStore();
    const runs = new RunManager({ agent: approvingAgent(), runStore });
    meterRuns(runs, meter);
    const origin = { gateway: "whatsapp", thread: "15551234567", author: { id: "15551234567" } };
    const first = runs.start({
      input: "send 5",
      threadId: "t1",
      userId: "whatsapp",
      conversationId: "15551234567",
      origin,
    });
    expect((await first.done).status).toBe("suspended");
    runStore.reads = 0;
    admitted.length = 0;
    const resumed = await runs.resume("t1", { decision: "approve" }, { userId: "whatsapp" });
    expect((await resumed.done).status).toBe("completed");
    expect(runStore.reads).toBe(1);
    const sender = {
      agent: "bot",
      userId: "whatsapp:15551234567",
      conversationId: "15551234567",
      gateway: "whatsapp",
    };
    expect(admitted).toEqual([sender]);
  });

  it("a continuation interrupted by a restart reads the saved run once, its model calls the sender's", async () => {
    const admitted: MeterScope[] = [];
    const meter: ModelMeter = {
      admit: async (scope) => {
        admitted.push(scope);
        return undefined;
      },
      record: () => {},
    };
    const runStore = new CountingRunStore();
    const first = new RunManager({ agent: approvingAgent(), runStore });
    const origin = { gateway: "whatsapp", thread: "15551234567", author: { id: "15551234567" } };
    const started = first.start({
      input: "send 5",
      threadId: "t1",
      userId: "whatsapp",
      conversationId: "15551234567",
      origin,
    });
    expect((await started.done).status).toBe("suspended");
    // The decision recorded, then the process stopped before the tool ran: a restart continues it.
    const saved = await runStore.get("t1");
    if (!saved) throw new Error("no saved run");
    await runStore.save({
      ...saved,
      continuation: { phase: "decided", decision: { decision: "approve", decidedBy: "whatsapp" } },
    });
    const runs = new RunManager({ agent: approvingAgent(), runStore });
    meterRuns(runs, meter);
    runStore.reads = 0;
    const continued = await runs.continueInterrupted("t1");
    expect((await continued.done).status).toBe("completed");
    expect(runStore.reads).toBe(1);
    expect(admitted).toEqual([
      { agent: "bot", userId: "whatsapp:15551234567", conversationId: "15551234567", gateway: "whatsapp" },
    ]);
  });
});
