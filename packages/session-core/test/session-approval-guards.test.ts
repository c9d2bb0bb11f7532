// Who may decide, and when: a stale decision never reaches the next request of the same run's
// thread, and configured approvers are the only deciders in an approval-destination chat.
import { describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { until, useRig } from "./session-harness.js";

const T = "room-9";
const openRig = useRig();

describe("a decision for a request already decided", () => {
  it("is refused while the thread's run waits on a newer request, which stays open", async () => {
    const r = await openRig({ gateway: { kind: "push", type: "chat" } });
    await r.gateway.inject({ thread: T, text: "use delete_file first.txt", author: "alice-id" });
    await until(() => r.gateway.decisionRequests.length === 1, "the first request");
    const first = r.gateway.decisionRequests[0]!;
    expect(await r.gateway.decide(first.requestId, "approve", "alice-id")).toMatchObject({ ok: true });
    await until(() => r.executed.length === 1, "the first tool call");
    await r.session.idle();
    // The platform is told the request was decided, with the id of the message that showed it
    // (what it edits to update or remove its buttons).
    expect(r.gateway.decided).toMatchObject([
      {
        requestId: first.requestId,
        decision: "approve",
        decidedBy: "alice-id",
        thread: T,
        requestMessageId: "mock-card-1",
      },
    ]);

    await r.gateway.inject({ thread: T, text: "use delete_file second.txt", author: "alice-id" });
    await until(() => r.gateway.decisionRequests.length === 2, "the second request");
    const second = r.gateway.decisionRequests[1]!;
    expect(second.threadId).toBe(first.threadId);

    // The first request's button pressed again (a platform that keeps old buttons, e.g. WhatsApp).
    expect(await r.gateway.decide(first.requestId, "approve", "alice-id")).toMatchObject({
      ok: false,
      code: "already_decided",
    });
    await new Promise((res) => setTimeout(res, 50));
    expect(r.executed).toEqual(["use delete_file first.txt"]);
    expect((await r.db.interactions.get(second.requestId))?.status).toBe("open");
    expect(r.session.snapshot("chat", T)).toMatchObject({
      phase: "suspended",
      pendingRequestId: second.requestId,
    });
  });
});

describe("an approval destination chat with configured approvers", () => {
  it("lets only a configured approver decide; anyone else in the chat is refused", async () => {
    const ops = createMockGateway({ kind: "push", type: "opsbot" });
    const r = await openRig({
      channel: "opsbot",
      extraGateways: [ops],
      entries: [
        { name: "mock", type: "mock" },
        { name: "opsbot", type: "opsbot", approvalDestination: "ops-room", approvers: ["carol-id"] },
      ],
    });
    const handle = r.runs.start({ input: "use delete_file web.txt", userId: "alice", conversationId: "c1" });
    await handle.done;
    await until(() => ops.decisionRequests.length === 1, "the request in the destination chat");
    const req = ops.decisionRequests[0]!;
    expect(req.thread).toBe("ops-room");

    expect(await ops.decide(req.requestId, "approve", "mallory-id")).toEqual({
      ok: false,
      code: "forbidden",
      message: `mallory-id may not decide interaction request "${req.requestId}"`,
    });
    expect((await r.db.interactions.get(req.requestId))?.status).toBe("open");
    expect(r.executed).toEqual([]);

    expect(await ops.decide(req.requestId, "approve", "carol-id")).toMatchObject({ ok: true });
    await until(() => r.executed.length === 1, "the approved tool call");
  });

  it("lets anyone in the chat decide when no approvers are configured", async () => {
    const ops = createMockGateway({ kind: "push", type: "opsbot" });
    const r = await openRig({
      channel: "opsbot",
      extraGateways: [ops],
      entries: [
        { name: "mock", type: "mock" },
        { name: "opsbot", type: "opsbot", approvalDestination: "ops-room" },
      ],
    });
    const handle = r.runs.start({ input: "use delete_file web.txt", userId: "alice", conversationId: "c1" });
    await handle.done;
    await until(() => ops.decisionRequests.length === 1, "the request in the destination chat");
    expect(await ops.decide(ops.decisionRequests[0]!.requestId, "approve", "dave-id")).toMatchObject({
      ok: true,
    });
    await until(() => r.executed.length === 1, "the approved tool call");
  });
});
