// An approval room is also a chat: someone may talk to the bot there while a run started elsewhere
// asks for a decision in it. The request is that other run's: it lands as its own message and
// leaves the room's own streamed reply alone (only a request of the room turn's own run
// finalises what that turn streamed so far).
import type { DemoStep } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { until, useRig } from "./session-harness.js";

const ROOM = "ops-room";
const SAID = "here is what I found so far";
const openRig = useRig();

describe("an approval room whose own turn is streaming a reply", () => {
  it("a request for another run lands as its own message; the room's reply still ends as one whole message", async () => {
    // The demo model reads its script at each model call: the room's turn streams, then waits at
    // its gate; the run started elsewhere (set up below) asks for a tool needing approval.
    const script: DemoStep[] = [
      { text: SAID, toolCalls: [{ name: "wait_gate", arguments: { note: "room" } }] },
      { text: "after the tool" },
    ];
    const ops = createMockGateway({ name: "ops", stream: {} });
    const r = await openRig({
      channel: "ops",
      extraGateways: [ops],
      entries: [{ name: "ops", type: "mock", approvalDestination: ROOM, streamIntervalMs: 20 }],
      script,
      tokenDelayMs: 5,
    });

    await ops.inject({ thread: ROOM, text: "look it up" });
    await until(() => r.gates.calls.length === 1, "the room's turn at its gate");
    await until(
      () => ops.streamCalls.some((c) => c.kind === "update" && c.text.trim() === SAID),
      "the room's preview showing what was said",
    );
    const draft = ops.streamCalls[0]?.draft;

    script[0] = { toolCalls: [{ name: "delete_file", arguments: { note: "web.txt" } }] };
    await r.runs.start({ input: "delete web.txt", userId: "alice", conversationId: "c1" }).done;
    await until(() => ops.decisionRequests.length === 1, "the other run's request");
    expect(ops.decisionRequests[0]).toMatchObject({ thread: ROOM, toolName: "delete_file" });
    // The room's draft is still open: the request did not finish it.
    expect(ops.streamCalls.filter((c) => c.kind === "finish")).toEqual([]);

    r.gates.openAll();
    await until(() => ops.textsTo(ROOM).length > 0, "the room's reply");
    await r.session.idle();
    const whole = `${SAID}\n\nafter the tool`;
    expect(ops.streamCalls.filter((c) => c.kind === "finish")).toEqual([
      expect.objectContaining({ draft, text: whole }),
    ]);
    expect(ops.textsTo(ROOM)).toEqual([whole]);
    // The other run still waits for its decision.
    expect(await r.db.interactions.get(ops.decisionRequests[0]!.requestId)).toMatchObject({ status: "open" });
    expect(r.executed).toEqual([]);
  });
});

describe("a text-only approval room whose own turn ended after another run asked in it", () => {
  it("a typed decision still decides the other run's request, and starts no turn of its own", async () => {
    const script: DemoStep[] = [
      { text: "said", toolCalls: [{ name: "wait_gate", arguments: { note: "room" } }] },
      { text: "after the tool" },
    ];
    const ops = createMockGateway({ name: "ops", capabilities: { interactiveActions: false } });
    const r = await openRig({
      channel: "ops",
      extraGateways: [ops],
      entries: [{ name: "ops", type: "mock", approvalDestination: ROOM }],
      script,
    });
    await ops.inject({ thread: ROOM, text: "look it up" });
    await until(() => r.gates.calls.length === 1, "the room's turn at its gate");
    script[0] = { toolCalls: [{ name: "delete_file", arguments: { note: "web.txt" } }] };
    await r.runs.start({ input: "delete web.txt", userId: "alice", conversationId: "c1" }).done;
    await until(() => ops.sent.some((s) => s.requestId !== undefined), "the other run's request as text");
    r.gates.openAll();
    await until(() => ops.textsTo(ROOM).includes("said\n\nafter the tool"), "the room's reply");
    await r.session.idle();

    await ops.inject({ thread: ROOM, text: "approve" });
    await until(() => r.executed.length === 1, "the approved tool call");
    expect(r.executed).toEqual(["web.txt"]);
    expect(r.runs.starts.filter((s) => s.conversationId === ROOM)).toHaveLength(1);
  });
});
