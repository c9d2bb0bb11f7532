// What an approval request carries (the message's platform data, the prompt a platform with buttons
// needs) and how decisions are answered: edits, presses at the same moment, a run no longer
// waiting, several requests in one chat, expiry and the log lines an operator reads.
import { describe, expect, it } from "vitest";
import { createMockGateway, type MockGateway } from "../src/testing/index.js";
import { memoryOf, type Rig, until, useRig } from "./session-harness.js";

const T = "room-5";
const openRig = useRig();

/** A message with platform routing data (`meta`) that asks for a tool needing approval. */
async function askWithMeta(r: Rig, meta: Record<string, unknown>): Promise<void> {
  await r.gateway.context.deliver({
    dedupKey: "m-1",
    thread: T,
    text: "use delete_file report.txt",
    author: { id: "user-1" },
    meta,
  });
  await until(() => r.session.snapshot("mock", T).pendingRequestId !== undefined, "the open request");
}

/** A destination chat `ops-room` on the gateway `ops` (its own options), asked for runs started elsewhere. */
async function withOpsRoom(
  options: Parameters<typeof createMockGateway>[0] = {},
): Promise<[Rig, MockGateway]> {
  const ops = createMockGateway({ name: "ops", ...options });
  const r = await openRig({
    channel: "ops",
    extraGateways: [ops],
    entries: [{ name: "ops", type: "mock", approvalDestination: "ops-room" }],
  });
  return [r, ops];
}

describe("a request carries the message's platform data", () => {
  it("to a platform with buttons: the request has the message's meta", async () => {
    const r = await openRig();
    await askWithMeta(r, { chatId: 42, replyTo: "m-1" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    expect(r.gateway.decisionRequests[0]?.meta).toEqual({ chatId: 42, replyTo: "m-1" });
    // Buttons carry the choices: the prompt does not list typed replies.
    expect(r.gateway.decisionRequests[0]?.prompt).not.toContain("Reply with one of");
  });

  it("to a text-only platform: the prompt is sent with the message's meta", async () => {
    const r = await openRig({ gateway: { capabilities: { interactiveActions: false } } });
    await askWithMeta(r, { chatId: 43 });
    await until(() => r.gateway.sent.length > 0, "the text request");
    expect(r.gateway.sent[0]).toMatchObject({ thread: T, meta: { chatId: 43 } });
    expect(r.gateway.sent[0]?.text).toContain("Reply with one of");
  });
});

describe("deciding", () => {
  it("an edit runs the tool with the replacement arguments", async () => {
    const r = await openRig();
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const req = r.gateway.decisionRequests[0]!;
    const outcome = await r.gateway.decide(req.requestId, {
      decision: "edit",
      editedData: { note: "draft.txt" },
    });
    expect(outcome).toEqual({ ok: true, requestId: req.requestId, decision: "edit" });
    await r.session.idle();
    expect(r.executed).toEqual(["draft.txt"]);
  });

  it("two presses at the same moment: one decides, the other is told the request was already decided", async () => {
    const r = await openRig();
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const id = r.gateway.decisionRequests[0]!.requestId;
    const outcomes = await Promise.all([r.gateway.decide(id, "approve"), r.gateway.decide(id, "reject")]);
    expect(outcomes[0]).toEqual({ ok: true, requestId: id, decision: "approve" });
    expect(outcomes[1]).toEqual({
      ok: false,
      code: "already_decided",
      message: `interaction request "${id}" was already decided`,
    });
    await r.session.idle();
    expect(r.executed).toHaveLength(1);
    expect(r.gateway.decided).toHaveLength(1);
  });

  it("a run already resumed by another way (or ended) is not waiting: its open request is refused and expires as not applied", async () => {
    const [r, ops] = await withOpsRoom();
    const handle = r.runs.start({ input: "use slow_delete web.txt", userId: "alice", conversationId: "c1" });
    await handle.done;
    await until(() => ops.decisionRequests.length === 1, "the request");
    const req = ops.decisionRequests[0]!;
    const notWaiting = {
      ok: false,
      code: "already_decided",
      message: `the run of "${req.requestId}" is no longer waiting for a decision`,
    };
    // Approved straight through the run manager: its continuation runs, the request is still open.
    const resumed = await r.runs.resume(handle.threadId, { decision: "approve" }, { userId: "alice" });
    await until(() => r.gates.calls.length === 1, "the continuation at its gate");
    expect(await ops.decide(req.requestId, "reject")).toEqual(notWaiting);
    r.gates.openAll();
    await resumed.done;
    expect(await ops.decide(req.requestId, "reject")).toEqual(notWaiting);
    expect(r.executed).toEqual(["use slow_delete web.txt"]);

    expect(await r.session.expireApprovals(req.expiresAt)).toBe(0);
    const expired = () => r.logs.lines().filter((l) => l.msg === "approval request expired");
    expect(expired()).toMatchObject([{ requestId: req.requestId, outcome: "already_decided" }]);
    // Closed once found: the next sweeps neither find it again nor log it again.
    expect(await r.db.interactions.get(req.requestId)).toMatchObject({
      status: "resolved",
      decision: {
        decision: "reject",
        decidedBy: "session:expired",
        reason: expect.stringContaining("no longer waiting"),
      },
    });
    expect(await r.session.expireApprovals(Number(req.expiresAt) + 60_000)).toBe(0);
    expect(expired()).toHaveLength(1);
    expect(r.gateway.decided).toHaveLength(0);
  });
});

describe("several requests in one chat", () => {
  it("deciding an older request by its button leaves the newer one waiting for a typed reply, and each decision's notice reaches the platform", async () => {
    const [r, ops] = await withOpsRoom({ capabilities: { threads: false } });
    await r.runs.start({ input: "use delete_file one.txt", userId: "alice", conversationId: "c1" }).done;
    await until(() => ops.decisionRequests.length === 1, "the first request");
    await r.runs.start({ input: "use delete_file two.txt", userId: "bob", conversationId: "c2" }).done;
    await until(() => ops.decisionRequests.length === 2, "the second request");
    const [first, second] = ops.decisionRequests;
    expect(r.session.snapshot("ops", "ops-room").pendingRequestId).toBe(second?.requestId);

    expect(await ops.decide(first!.requestId, "approve")).toMatchObject({ ok: true });
    await until(() => r.executed.length === 1, "the first tool call");
    expect(r.session.snapshot("ops", "ops-room").pendingRequestId).toBe(second?.requestId);

    await ops.inject({ thread: "ops-room", text: "yes" });
    await until(() => r.executed.length === 2, "the second tool call");
    expect(r.executed).toEqual(["use delete_file one.txt", "use delete_file two.txt"]);
    expect((await r.db.interactions.get(second!.requestId))?.status).toBe("resolved");
    await until(() => ops.decided.length === 2, "both decided notices");
    expect(ops.decided.map((d) => d.requestId)).toEqual([first?.requestId, second?.requestId]);
    // The typed reply decided: it started no turn of its own in the chat.
    expect(r.runs.starts.filter((s) => s.conversationId === "ops-room")).toEqual([]);
  });
});

describe("runs from elsewhere", () => {
  it("the operator's log says how an approved run ended", async () => {
    const [r, ops] = await withOpsRoom();
    const handle = r.runs.start({ input: "use delete_file web.txt", userId: "alice", conversationId: "c1" });
    await handle.done;
    await until(() => ops.decisionRequests.length === 1, "the request");
    await ops.decide(ops.decisionRequests[0]!.requestId, "approve");
    const ended = () => r.logs.lines().filter((l) => l.msg === "approved run ended");
    await until(() => ended().length === 1, "the log line");
    expect(ended()).toMatchObject([{ threadId: handle.threadId, status: "completed" }]);
  });

  it("a run whose origin gateway is not registered is rejected at once, naming that gateway", async () => {
    const r = await openRig();
    const handle = r.runs.start({
      input: "use delete_file a.txt",
      userId: "alice",
      conversationId: "c9",
      origin: { gateway: "gone", thread: "t-1", author: { id: "user-1" } },
    });
    await handle.done;
    await until(async () => (await memoryOf(r, "alice", "c9")).length > 0, "the turn to end");
    const tool = (await memoryOf(r, "alice", "c9")).find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain(
      'no approval channel could ask for a decision: the gateway \\"gone\\" the run came from is not registered',
    );
    expect(r.executed).toEqual([]);
  });
});

describe("expiry", () => {
  it("logs each expired request with its outcome", async () => {
    const r = await openRig({ expiresAfterSeconds: 60 });
    await r.gateway.inject({ thread: T, text: "use delete_file old.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const req = r.gateway.decisionRequests[0]!;
    expect(await r.session.expireApprovals(req.expiresAt)).toBe(1);
    const expired = r.logs.lines().filter((l) => l.msg === "approval request expired");
    expect(expired).toMatchObject([{ requestId: req.requestId, outcome: "rejected" }]);
  });
});
