// Approvals through gateways: request built and persisted, rendered per capabilities, decided, resumed.
import { describe, expect, it } from "vitest";
import { AgentsvcError } from "@agentsvc/agent-core";
import { createGatewaySession, GatewayRegistry, type InteractionRequest } from "../src/index.js";
import { createMockGateway } from "../src/testing/index.js";
import { type Rig, tempDir, until, useRig } from "./session-harness.js";

const T = "room-7";
const openRig = useRig();

async function suspendOn(r: Rig, thread = T) {
  await r.gateway.inject({ thread, text: "use delete_file report.txt" });
  if (!r.gateway.capabilities.interactiveActions) {
    // A text-only platform gets the prompt as a plain message; the request is in the store.
    await until(
      () => r.gateway.textsTo(thread).some((t) => t.startsWith("Approval needed")),
      "the text request",
    );
    const id = r.session.snapshot(r.gateway.name, thread).pendingRequestId as string;
    return (await r.session.interaction(id)) as InteractionRequest;
  }
  await until(() => r.gateway.decisionRequests.length > 0, "the decision request");
  return r.gateway.decisionRequests[0]!;
}

describe("approvals on a gateway with interactive actions", () => {
  it("persists an interaction request naming the tool and arguments and asks the origin gateway", async () => {
    const r = await openRig();
    const req = await suspendOn(r);
    expect(req).toMatchObject({
      gateway: "mock",
      thread: T,
      threadId: `gw:mock:${T}`,
      toolName: "delete_file",
      allowedDecisions: expect.arrayContaining(["approve", "reject"]),
    });
    expect(req.arguments).toEqual({ note: "use delete_file report.txt" });
    expect(req.prompt).toContain('"delete_file"');
    const stored = await r.db.interactions.get(req.requestId);
    expect(stored).toMatchObject({ status: "open", threadId: req.threadId, gateway: "mock", thread: T });
    expect(r.session.snapshot("mock", T)).toMatchObject({
      phase: "suspended",
      pendingRequestId: req.requestId,
    });
    // Interactive: no text message was needed.
    expect(r.gateway.sent).toHaveLength(0);
  });

  it("resumes the run on approve and sends the continuation's reply back through the gateway", async () => {
    const r = await openRig();
    const req = await suspendOn(r);
    const outcome = await r.gateway.decide(req.requestId, "approve", "mock:alice");
    expect(outcome).toEqual({ ok: true, requestId: req.requestId, decision: "approve" });
    await r.session.idle();
    expect(r.executed).toEqual(["use delete_file report.txt"]);
    expect(r.gateway.textsTo(T)).toEqual(["The tool delete_file returned: deleted."]);
    expect(await r.db.interactions.get(req.requestId)).toMatchObject({
      status: "resolved",
      decision: { decision: "approve", decidedBy: "mock:alice" },
    });
    expect(await r.db.inbox.unfinished()).toEqual([]);
  });

  it("does not run the tool on reject and passes the reason on", async () => {
    const r = await openRig();
    const req = await suspendOn(r);
    await r.gateway.decide(req.requestId, { decision: "reject", reason: "not today" });
    await r.session.idle();
    expect(r.executed).toEqual([]);
    expect(r.gateway.textsTo(T)).toHaveLength(1);
    // The platform's decided notice carries the reason (to show on the request message).
    expect(r.gateway.decided).toMatchObject([{ decision: "reject", reason: "not today" }]);
  });

  it("refuses a second decision and a decision that is not allowed", async () => {
    const r = await openRig();
    const req = await suspendOn(r);
    expect(await r.gateway.decide(req.requestId, "maybe" as never)).toMatchObject({
      ok: false,
      code: "bad_decision",
      message: expect.stringContaining('expected one of approve, reject, edit (got "maybe")'),
    });
    // Edit without replacement arguments is refused by the run manager and reported the same way.
    expect(await r.gateway.decide(req.requestId, "edit")).toMatchObject({
      ok: false,
      code: "bad_decision",
      message: expect.stringContaining("editedData"),
    });
    expect((await r.db.interactions.get(req.requestId))?.status).toBe("open");
    await r.gateway.decide(req.requestId, "approve");
    // The thread no longer waits on it.
    expect(r.session.snapshot("mock", T).pendingRequestId).toBeUndefined();
    expect(await r.gateway.decide(req.requestId, "reject")).toMatchObject({
      ok: false,
      code: "already_decided",
      message: `interaction request "${req.requestId}" was already decided`,
    });
    expect(await r.gateway.decide("req_unknown", "approve")).toMatchObject({
      ok: false,
      code: "not_found",
      message: 'no interaction request "req_unknown"',
    });
    await r.session.idle();
    expect(r.executed).toHaveLength(1);
    // The platform hears of the approval once.
    expect(r.gateway.decided).toHaveLength(1);
  });

  it("queues a message arriving while the approval is pending and runs it after the approved turn", async () => {
    const r = await openRig({ gatewaySession: { policy: "queue" } });
    const req = await suspendOn(r);
    await r.gateway.inject({ thread: T, text: "what is happening" });
    await until(() => r.session.snapshot("mock", T).queued === 1);
    await r.gateway.decide(req.requestId, "approve");
    await r.session.idle();
    const texts = r.gateway.textsTo(T);
    expect(texts[0]).toBe("The tool delete_file returned: deleted.");
    expect(texts[1]).toContain('You said: "what is happening"');
  });

  it("interrupt rejects and cancels a pending approval, then runs the new message", async () => {
    const r = await openRig({ gatewaySession: { policy: "interrupt" } });
    const req = await suspendOn(r);
    await r.gateway.inject({ thread: T, text: "forget it" });
    await r.session.idle();
    expect(r.executed).toEqual([]);
    expect(await r.db.interactions.get(req.requestId)).toMatchObject({
      status: "resolved",
      decision: { decision: "reject" },
    });
    expect(r.gateway.textsTo(T).at(-1)).toContain('You said: "forget it"');
  });
});

describe("interrupt on a pending approval", () => {
  it("cancels the waiting run: it says nothing more, and the new message gets the only reply", async () => {
    const r = await openRig({ gatewaySession: { policy: "interrupt" } });
    await suspendOn(r);
    const before = r.gateway.textsTo(T).length;
    await r.gateway.inject({ thread: T, text: "forget it" });
    await r.session.idle();
    const after = r.gateway.textsTo(T).slice(before);
    expect(after).toHaveLength(1);
    expect(after[0]).toContain('You said: "forget it"');
  });
});

describe("approvals on a text-only gateway", () => {
  it("sends the request as text listing the decisions and reads a plain yes as approval", async () => {
    const r = await openRig({ gateway: { capabilities: { interactiveActions: false } } });
    await suspendOn(r);
    const prompt = r.gateway.textsTo(T)[0] ?? "";
    // The session tells a text-only adapter which request the piece renders (e-mail tags its subject with it).
    expect(r.gateway.sent[0]?.requestId).toBe(r.session.snapshot("mock", T).pendingRequestId);
    expect(prompt).toContain("- approve (or: yes, a)");
    expect(prompt).toContain("- reject (or: no, r)");
    await r.gateway.inject({ thread: T, text: "YES" });
    await r.session.idle();
    expect(r.executed).toHaveLength(1);
    expect(r.gateway.textsTo(T).at(-1)).toBe("The tool delete_file returned: deleted.");
    expect(r.runs.starts).toHaveLength(1);
  });

  it("a typed 'yes' that decided is finished with the decision, so a restart does not run it as a message", async () => {
    const dir = tempDir();
    const first = await openRig({ dir, gateway: { capabilities: { interactiveActions: false } } });
    await suspendOn(first);
    await first.gateway.inject({ thread: T, text: "yes" });
    await first.session.idle();
    expect(first.executed).toHaveLength(1);
    await first.close();
    const r = await openRig({ dir, gateway: { capabilities: { interactiveActions: false } } });
    await r.session.idle();
    expect(r.runs.starts).toEqual([]);
    expect(r.gateway.sent).toEqual([]);
  });

  it.each([
    [false, 1],
    [true, 0],
  ])(
    "warns when a new request replaces the open one only on a platform without threads (threads: %s, warnings: %i)",
    async (threads, warnings) => {
      const ops = createMockGateway({ name: "ops", capabilities: { threads, interactiveActions: false } });
      const r = await openRig({
        extraGateways: [ops],
        channel: "ops",
        entries: [{ name: "ops", type: "mock", approvalDestination: "ops-room" }],
      });
      const first = r.runs.start({
        input: "use delete_file one.txt",
        userId: "alice",
        conversationId: "c1",
      });
      await first.done;
      await until(() => ops.textsTo("ops-room").length === 1, "the first request");
      const second = r.runs.start({
        input: "use delete_file two.txt",
        userId: "bob",
        conversationId: "c2",
      });
      await second.done;
      await until(() => ops.textsTo("ops-room").length === 2, "the second request");
      const warned = r.logs
        .lines()
        .filter((l) => l.msg?.startsWith("a new approval request replaces the open one on this thread"));
      expect(warned).toHaveLength(warnings);
      if (warnings > 0) expect(warned[0]).toMatchObject({ thread: "ops-room" });
    },
  );

  it("reads 'reject: reason' as a rejection with that reason", async () => {
    const r = await openRig({ gateway: { capabilities: { interactiveActions: false } } });
    const req = await suspendOn(r);
    await r.gateway.inject({ thread: T, text: "reject: wrong file" });
    await r.session.idle();
    expect(r.executed).toEqual([]);
    expect((await r.db.interactions.get(req.requestId))?.decision).toMatchObject({
      decision: "reject",
      reason: "wrong file",
    });
  });
});

describe("approvals of runs not started from a gateway", () => {
  it("asks the agent's approval channel and resumes with the run owner's identity", async () => {
    const channel = createMockGateway({ name: "ops" });
    const r = await openRig({ extraGateways: [channel], channel: "ops" });
    const handle = r.runs.start({
      input: "use delete_file web.txt",
      userId: "alice",
      conversationId: "c1",
    });
    await handle.done;
    await until(() => channel.decisionRequests.length === 1, "the channel request");
    const req = channel.decisionRequests[0]!;
    expect(req).toMatchObject({ gateway: "ops", thread: handle.threadId, threadId: handle.threadId });
    expect(r.gateway.decisionRequests).toHaveLength(0);
    await channel.decide(req.requestId, "approve", "ops:bob");
    await until(() => r.executed.length === 1, "the approved tool call");
    await r.runs.get(handle.threadId)?.done;
    const memory = await r.db
      .createMemory({ canSummarize: false })
      .load({ userId: "alice", conversationId: "c1" });
    expect(memory.some((m) => m.role === "tool" && m.result === "deleted")).toBe(true);
  });

  it("defaults the approval channel to cli", async () => {
    const cli = createMockGateway({ name: "cli", type: "cli" });
    const r = await openRig({ extraGateways: [cli] });
    const handle = r.runs.start({ input: "use delete_file x", userId: "alice", conversationId: "c2" });
    await handle.done;
    await until(() => cli.decisionRequests.length === 1, "the cli request");
  });

  it("handles a suspension reported twice (server hook and session) only once", async () => {
    const channel = createMockGateway({ name: "cli", type: "cli" });
    const r = await openRig({ extraGateways: [channel] });
    const handle = r.runs.start({
      input: "use delete_file twice",
      userId: "alice",
      conversationId: "c3",
    });
    await handle.done;
    await until(() => channel.decisionRequests.length === 1);
    const run = await r.db.runStore.get(handle.threadId);
    const pending = await r.runs.pending(handle.threadId, { userId: "alice" });
    await r.session.handleSuspension(run!, pending!);
    expect(channel.decisionRequests).toHaveLength(1);
  });
});

describe("building the session", () => {
  it("fails at boot naming the entry file when a configured gateway type is not registered", () => {
    const registry = new GatewayRegistry();
    registry.register(createMockGateway());
    const build = () =>
      createGatewaySession({
        runs: {} as never,
        store: {} as never,
        registry,
        agent: { name: "root" },
        entries: [{ name: "tg", type: "telegram", file: "gateways/tg.yaml" }],
      });
    expect(build).toThrow(AgentsvcError);
    expect(build).toThrow(
      /gateways\/tg\.yaml: type: no gateway of type "telegram".*pnpm add @agentsvc\/gateway-telegram/,
    );
  });

  it("fails at boot on a policy outside the four allowed values", () => {
    const build = () =>
      createGatewaySession({
        runs: {} as never,
        store: {} as never,
        registry: new GatewayRegistry(),
        agent: { name: "root", gatewaySession: { policy: "drop" as never } },
      });
    expect(build).toThrow(
      /gatewaySession\.policy: expected one of reject, queue, steer, interrupt \(got "drop"\)/,
    );
  });
});
