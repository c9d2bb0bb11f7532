// Which turn a decision continues: the thread's own turn (it runs again, so the busy policy treats it
// as running), never another turn that happens to be live in the chat where the request was shown.
import { describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { tempDir, until, useRig } from "./session-harness.js";

const openRig = useRig();

describe("an approval-destination chat that has its own turn running", () => {
  it("asks and resumes a run from elsewhere there without suspending, replying for or finishing the chat's own turn", async () => {
    const ops = createMockGateway({ name: "ops" });
    const r = await openRig({
      channel: "ops",
      extraGateways: [ops],
      entries: [{ name: "ops", type: "mock", approvalDestination: "ops-room" }],
    });
    // Someone in the destination chat talks to the agent: that turn waits at its gate.
    await ops.inject({ thread: "ops-room", text: "use wait_gate first" });
    await until(() => r.gates.calls.length === 1, "the chat's own turn at its gate");

    const handle = r.runs.start({ input: "use delete_file web.txt", userId: "alice", conversationId: "c1" });
    await handle.done;
    await until(() => ops.decisionRequests.length === 1, "the request in the destination chat");
    const req = ops.decisionRequests[0]!;
    expect(req.thread).toBe("ops-room");
    // The chat's turn still runs: the request belongs to another run.
    expect(r.session.snapshot("ops", "ops-room")).toMatchObject({ running: true, phase: "running" });

    expect(await ops.decide(req.requestId, "approve", "ops:bob")).toMatchObject({ ok: true });
    await until(() => r.executed.length === 1, "the approved tool call");
    await r.runs.get(handle.threadId)?.done;
    // The approved run saved its own turn; nothing of it went to the chat, whose turn is still open.
    const memory = await r.db
      .createMemory({ canSummarize: false })
      .load({ userId: "alice", conversationId: "c1" });
    expect(memory.some((m) => m.role === "tool" && m.result === "deleted")).toBe(true);
    expect(ops.textsTo("ops-room")).toEqual([]);
    expect(r.session.snapshot("ops", "ops-room")).toMatchObject({ running: true, phase: "running" });

    r.gates.openAll();
    await r.session.idle();
    expect(ops.textsTo("ops-room")).toEqual(["The tool wait_gate returned: opened."]);
    expect(await r.db.inbox.unfinished()).toEqual([]);
  });
});

describe("the continuation of an approved gateway turn", () => {
  it("is a running turn again: under interrupt a new message cancels it and gets the only reply", async () => {
    const r = await openRig({ gatewaySession: { policy: "interrupt" } });
    await r.gateway.inject({ thread: "T", text: "use slow_delete report.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const req = r.gateway.decisionRequests[0]!;
    expect(await r.gateway.decide(req.requestId, "approve")).toMatchObject({ ok: true });
    await until(() => r.gates.calls.length === 1, "the approved tool at its gate");
    expect(r.session.snapshot("mock", "T")).toMatchObject({ running: true, phase: "running" });

    await r.gateway.inject({ thread: "T", text: "stop that" });
    await until(() => r.session.snapshot("mock", "T").queued === 1, "the new message queued");
    r.gates.openAll();
    await r.session.idle();
    // The tool call was already under way (the gate ignores cancel); its turn says nothing more.
    const texts = r.gateway.textsTo("T");
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain('You said: "stop that"');
    expect(r.runs.starts.map((s) => s.input)).toEqual(["use slow_delete report.txt", "stop that"]);
  });

  it("approved after a restart, it takes a steered message in: the same turn answers it, with no error", async () => {
    const dir = tempDir();
    const first = await openRig({ dir, gatewaySession: { policy: "steer" } });
    await first.gateway.inject({ thread: "T", text: "use slow_delete report.txt" });
    await until(() => first.gateway.decisionRequests.length === 1, "the request");
    const req = first.gateway.decisionRequests[0]!;
    await first.close();
    // The restarted session knows the waiting turn only from the store.
    const r = await openRig({ dir, gatewaySession: { policy: "steer" } });
    await until(
      () => r.session.snapshot("mock", "T").pendingRequestId === req.requestId,
      "the recovered request",
    );
    expect(await r.gateway.decide(req.requestId, "approve")).toMatchObject({ ok: true });
    await until(() => r.gates.calls.length === 1, "the approved tool at its gate");
    // A fresh platform message id (the restarted mock numbers its ids from the start again).
    await r.gateway.inject({ thread: "T", text: "and also this", id: "after-restart-1" });
    await until(() => r.session.snapshot("mock", "T").steered === 1, "the message steered into the turn");
    r.gates.openAll();
    await r.session.idle();
    expect(r.runs.starts).toEqual([]);
    expect(r.gateway.textsTo("T")).toHaveLength(1);
    expect(r.gateway.textsTo("T")[0]).toContain('You said: "and also this"');
    expect(await r.db.inbox.unfinished()).toEqual([]);
    expect(r.logs.lines().filter((l) => l.level >= 50)).toEqual([]);
  });
});

describe("a streamed reply that stops for an approval", () => {
  it("finishes the text so far as its own message before the request, and the continuation sends only the rest", async () => {
    const before = "first part of the answer before the tool";
    const r = await openRig({
      gateway: { stream: {} },
      entries: [{ name: "mock", type: "mock", streamIntervalMs: 20 }],
      tokenDelayMs: 10,
      script: [
        { text: before, toolCalls: [{ name: "delete_file", arguments: { note: "n1" } }] },
        { text: "the file is gone" },
      ],
    });
    await r.gateway.inject({ thread: "T", text: "delete it" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    // The draft was finished with the text so far before the request was made.
    expect(r.gateway.streamCalls.filter((c) => c.kind === "finish").map((c) => c.text)).toEqual([before]);
    expect(r.gateway.textsTo("T")).toEqual([before]);

    const req = r.gateway.decisionRequests[0]!;
    expect(await r.gateway.decide(req.requestId, "approve")).toMatchObject({ ok: true });
    await r.session.idle();
    expect(r.executed).toEqual(["n1"]);
    expect(r.gateway.textsTo("T")).toEqual([before, "the file is gone"]);
  });
});
