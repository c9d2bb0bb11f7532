// Approvals through gateways: request built and persisted, rendered per capabilities, decided, resumed.
import { afterEach, describe, expect, it } from "vitest";
import { AgentsvcError } from "@agentsvc/agent-core";
import { createGatewaySession, GatewayRegistry, type InteractionRequest } from "../src/index.js";
import { createMockGateway } from "../src/testing/index.js";
import { type Rig, removeDir, rig, tempDir, until } from "./session-harness.js";

const T = "room-7";
let current: Rig | undefined;
afterEach(async () => {
  if (current) {
    await current.close();
    removeDir(current.dir);
    current = undefined;
  }
});

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
    current = await rig();
    const req = await suspendOn(current);
    expect(req).toMatchObject({
      gateway: "mock",
      thread: T,
      threadId: `gw:mock:${T}`,
      toolName: "delete_file",
      allowedDecisions: expect.arrayContaining(["approve", "reject"]),
    });
    expect(req.arguments).toEqual({ note: "use delete_file report.txt" });
    expect(req.prompt).toContain('"delete_file"');
    const stored = await current.db.interactions.get(req.requestId);
    expect(stored).toMatchObject({ status: "open", threadId: req.threadId, gateway: "mock", thread: T });
    expect(current.session.snapshot("mock", T)).toMatchObject({
      phase: "suspended",
      pendingRequestId: req.requestId,
    });
    // Interactive: no text message was needed.
    expect(current.gateway.sent).toHaveLength(0);
  });

  it("resumes the run on approve and sends the continuation's reply back through the gateway", async () => {
    current = await rig();
    const req = await suspendOn(current);
    const outcome = await current.gateway.decide(req.requestId, "approve", "mock:alice");
    expect(outcome).toEqual({ ok: true, requestId: req.requestId, decision: "approve" });
    await current.session.idle();
    expect(current.executed).toEqual(["use delete_file report.txt"]);
    expect(current.gateway.textsTo(T)).toEqual(["The tool delete_file returned: deleted."]);
    expect(await current.db.interactions.get(req.requestId)).toMatchObject({
      status: "resolved",
      decision: { decision: "approve", decidedBy: "mock:alice" },
    });
    expect(await current.db.inbox.unfinished()).toEqual([]);
  });

  it("does not run the tool on reject and passes the reason on", async () => {
    current = await rig();
    const req = await suspendOn(current);
    await current.gateway.decide(req.requestId, { decision: "reject", reason: "not today" });
    await current.session.idle();
    expect(current.executed).toEqual([]);
    expect(current.gateway.textsTo(T)).toHaveLength(1);
    // The platform's decided notice carries the reason (to show on the request message).
    expect(current.gateway.decided).toMatchObject([{ decision: "reject", reason: "not today" }]);
  });

  it("refuses a second decision and a decision that is not allowed", async () => {
    current = await rig();
    const req = await suspendOn(current);
    expect(await current.gateway.decide(req.requestId, "maybe" as never)).toMatchObject({
      ok: false,
      code: "bad_decision",
      message: expect.stringContaining('expected one of approve, reject, edit (got "maybe")'),
    });
    // Edit without replacement arguments is refused by the run manager and reported the same way.
    expect(await current.gateway.decide(req.requestId, "edit")).toMatchObject({
      ok: false,
      code: "bad_decision",
      message: expect.stringContaining("editedData"),
    });
    expect((await current.db.interactions.get(req.requestId))?.status).toBe("open");
    await current.gateway.decide(req.requestId, "approve");
    // The thread no longer waits on it.
    expect(current.session.snapshot("mock", T).pendingRequestId).toBeUndefined();
    expect(await current.gateway.decide(req.requestId, "reject")).toMatchObject({
      ok: false,
      code: "already_decided",
      message: `interaction request "${req.requestId}" was already decided`,
    });
    expect(await current.gateway.decide("req_unknown", "approve")).toMatchObject({
      ok: false,
      code: "not_found",
      message: 'no interaction request "req_unknown"',
    });
    await current.session.idle();
    expect(current.executed).toHaveLength(1);
    // The platform hears of the approval once.
    expect(current.gateway.decided).toHaveLength(1);
  });

  it("queues a message arriving while the approval is pending and runs it after the approved turn", async () => {
    current = await rig({ gatewaySession: { policy: "queue" } });
    const req = await suspendOn(current);
    await current.gateway.inject({ thread: T, text: "what is happening" });
    await until(() => current?.session.snapshot("mock", T).queued === 1);
    await current.gateway.decide(req.requestId, "approve");
    await current.session.idle();
    const texts = current.gateway.textsTo(T);
    expect(texts[0]).toBe("The tool delete_file returned: deleted.");
    expect(texts[1]).toContain('You said: "what is happening"');
  });

  it("interrupt rejects and cancels a pending approval, then runs the new message", async () => {
    current = await rig({ gatewaySession: { policy: "interrupt" } });
    const req = await suspendOn(current);
    await current.gateway.inject({ thread: T, text: "forget it" });
    await current.session.idle();
    expect(current.executed).toEqual([]);
    expect(await current.db.interactions.get(req.requestId)).toMatchObject({
      status: "resolved",
      decision: { decision: "reject" },
    });
    expect(current.gateway.textsTo(T).at(-1)).toContain('You said: "forget it"');
  });
});

describe("interrupt on a pending approval", () => {
  it("cancels the waiting run: it says nothing more, and the new message gets the only reply", async () => {
    current = await rig({ gatewaySession: { policy: "interrupt" } });
    await suspendOn(current);
    const before = current.gateway.textsTo(T).length;
    await current.gateway.inject({ thread: T, text: "forget it" });
    await current.session.idle();
    const after = current.gateway.textsTo(T).slice(before);
    expect(after).toHaveLength(1);
    expect(after[0]).toContain('You said: "forget it"');
  });
});

describe("approvals on a text-only gateway", () => {
  it("sends the request as text listing the decisions and reads a plain yes as approval", async () => {
    current = await rig({ gateway: { capabilities: { interactiveActions: false } } });
    await suspendOn(current);
    const prompt = current.gateway.textsTo(T)[0] ?? "";
    // The session tells a text-only adapter which request the piece renders (e-mail tags its subject with it).
    expect(current.gateway.sent[0]?.requestId).toBe(current.session.snapshot("mock", T).pendingRequestId);
    expect(prompt).toContain("- approve (or: yes, a)");
    expect(prompt).toContain("- reject (or: no, r)");
    await current.gateway.inject({ thread: T, text: "YES" });
    await current.session.idle();
    expect(current.executed).toHaveLength(1);
    expect(current.gateway.textsTo(T).at(-1)).toBe("The tool delete_file returned: deleted.");
    expect(current.runs.starts).toHaveLength(1);
  });

  it("a typed 'yes' that decided is finished with the decision, so a restart does not run it as a message", async () => {
    const dir = tempDir();
    current = await rig({ dir, gateway: { capabilities: { interactiveActions: false } } });
    await suspendOn(current);
    await current.gateway.inject({ thread: T, text: "yes" });
    await current.session.idle();
    expect(current.executed).toHaveLength(1);
    await current.close();
    current = await rig({ dir, gateway: { capabilities: { interactiveActions: false } } });
    await current.session.idle();
    expect(current.runs.starts).toEqual([]);
    expect(current.gateway.sent).toEqual([]);
  });

  it.each([
    [false, 1],
    [true, 0],
  ])(
    "warns when a new request replaces the open one only on a platform without threads (threads: %s, warnings: %i)",
    async (threads, warnings) => {
      const ops = createMockGateway({ name: "ops", capabilities: { threads, interactiveActions: false } });
      current = await rig({
        extraGateways: [ops],
        channel: "ops",
        entries: [{ name: "ops", type: "mock", approvalDestination: "ops-room" }],
      });
      const first = current.runs.start({
        input: "use delete_file one.txt",
        userId: "alice",
        conversationId: "c1",
      });
      await first.done;
      await until(() => ops.textsTo("ops-room").length === 1, "the first request");
      const second = current.runs.start({
        input: "use delete_file two.txt",
        userId: "bob",
        conversationId: "c2",
      });
      await second.done;
      await until(() => ops.textsTo("ops-room").length === 2, "the second request");
      const warned = current.logs
        .lines()
        .filter((l) => l.msg?.startsWith("a new approval request replaces the open one on this thread"));
      expect(warned).toHaveLength(warnings);
      if (warnings > 0) expect(warned[0]).toMatchObject({ thread: "ops-room" });
    },
  );

  it("reads 'reject: reason' as a rejection with that reason", async () => {
    current = await rig({ gateway: { capabilities: { interactiveActions: false } } });
    const req = await suspendOn(current);
    await current.gateway.inject({ thread: T, text: "reject: wrong file" });
    await current.session.idle();
    expect(current.executed).toEqual([]);
    expect((await current.db.interactions.get(req.requestId))?.decision).toMatchObject({
      decision: "reject",
      reason: "wrong file",
    });
  });
});

describe("approvals of runs not started from a gateway", () => {
  it("asks the agent's approval channel and resumes with the run owner's identity", async () => {
    const channel = createMockGateway({ name: "ops" });
    current = await rig({ extraGateways: [channel], channel: "ops" });
    const handle = current.runs.start({
      input: "use delete_file web.txt",
      userId: "alice",
      conversationId: "c1",
    });
    await handle.done;
    await until(() => channel.decisionRequests.length === 1, "the channel request");
    const req = channel.decisionRequests[0]!;
    expect(req).toMatchObject({ gateway: "ops", thread: handle.threadId, threadId: handle.threadId });
    expect(current.gateway.decisionRequests).toHaveLength(0);
    await channel.decide(req.requestId, "approve", "ops:bob");
    await until(() => current?.executed.length === 1, "the approved tool call");
    await current.runs.get(handle.threadId)?.done;
    const memory = await current.db
      .createMemory({ canSummarize: false })
      .load({ userId: "alice", conversationId: "c1" });
    expect(memory.some((m) => m.role === "tool" && m.result === "deleted")).toBe(true);
  });

  it("defaults the approval channel to cli", async () => {
    const cli = createMockGateway({ name: "cli", type: "cli" });
    current = await rig({ extraGateways: [cli] });
    const handle = current.runs.start({ input: "use delete_file x", userId: "alice", conversationId: "c2" });
    await handle.done;
    await until(() => cli.decisionRequests.length === 1, "the cli request");
  });

  it("handles a suspension reported twice (server hook and session) only once", async () => {
    const channel = createMockGateway({ name: "cli", type: "cli" });
    current = await rig({ extraGateways: [channel] });
    const handle = current.runs.start({
      input: "use delete_file twice",
      userId: "alice",
      conversationId: "c3",
    });
    await handle.done;
    await until(() => channel.decisionRequests.length === 1);
    const run = await current.db.runStore.get(handle.threadId);
    const pending = await current.runs.pending(handle.threadId, { userId: "alice" });
    await current.session.handleSuspension(run!, pending!);
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
