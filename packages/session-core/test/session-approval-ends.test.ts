// No conversation is blocked for good: requests expire, a request nothing can render is rejected
// at once, and only the thread's own participant (or a configured approver) can decide.
import { describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { memoryOf, until, useRig } from "./session-harness.js";

const openRig = useRig();

describe("approval requests end", () => {
  it("an open request is rejected when it expires, the run goes on with the rejection, and the next message runs", async () => {
    const r = await openRig({ expiresAfterSeconds: 60 });
    await r.gateway.inject({ thread: "T", text: "use delete_file old.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const request = r.gateway.decisionRequests[0]!;
    expect(request.expiresAt).toBe(request.createdAt + 60_000);
    expect(await r.session.expireApprovals(request.createdAt + 59_000)).toBe(0);
    expect(await r.session.expireApprovals(request.createdAt + 60_000)).toBe(1);
    await r.session.idle();
    expect(r.executed).toEqual([]);
    expect(await r.db.interactions.get(request.requestId)).toMatchObject({ status: "resolved" });
    const tool = (await memoryOf(r, "mock", "T")).find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("no decision within 1 minute; the request expired");
    await r.gateway.inject({ thread: "T", text: "are you there" });
    await r.session.idle();
    expect(r.gateway.textsTo("T").at(-1)).toContain("are you there");
  });

  it("one instance expires requests on its own schedule", async () => {
    const r = await openRig();
    expect(r.session.scheduler.list().map((t) => t.name)).toContain("session:approval-expiry");
  });

  it("expiry rejects a request on a push platform, where only the thread's participant may decide", async () => {
    const r = await openRig({ expiresAfterSeconds: 60, gateway: { kind: "push", type: "chat" } });
    await r.gateway.inject({ thread: "room", text: "use delete_file d.txt", author: "alice-id" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const request = r.gateway.decisionRequests[0]!;
    expect(await r.session.expireApprovals(request.createdAt + 60_000)).toBe(1);
    await r.session.idle();
    expect(r.executed).toEqual([]);
    expect(await r.db.interactions.get(request.requestId)).toMatchObject({
      status: "resolved",
      decision: { decision: "reject", decidedBy: "session:expired" },
    });
  });

  it("an open request expires after 24 hours when no expiry is configured", async () => {
    const r = await openRig();
    await r.gateway.inject({ thread: "T", text: "use delete_file e.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const request = r.gateway.decisionRequests[0]!;
    const day = 24 * 60 * 60 * 1000;
    expect(request.expiresAt).toBe(request.createdAt + day);
    expect(await r.session.expireApprovals(request.createdAt + day - 1)).toBe(0);
    // Expired late (the sweep ran 30 minutes after): the reason still names the request's own span.
    expect(await r.session.expireApprovals(request.createdAt + day + 30 * 60_000)).toBe(1);
    await r.session.idle();
    const tool = (await memoryOf(r, "mock", "T")).find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("no decision within 1440 minutes; the request expired");
  });

  it("a run from elsewhere is rejected at once, with the reason in the tool result, when no approval channel exists", async () => {
    const r = await openRig({ channel: "nowhere" });
    const handle = r.runs.start({
      input: "use delete_file a.txt",
      userId: "alice",
      conversationId: "c1",
    });
    await handle.done;
    await until(async () => (await memoryOf(r, "alice", "c1")).length > 0, "the turn to end");
    const tool = (await memoryOf(r, "alice", "c1")).find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain('approval channel \\"nowhere\\" is not available');
    expect(r.executed).toEqual([]);
    expect(await r.runs.pending(handle.threadId, { userId: "alice" })).toBeUndefined();
    // The conversation is free again.
    const next = r.runs.start({ input: "hello", userId: "alice", conversationId: "c1" });
    expect((await next.done).status).toBe("completed");
  });

  it("a push platform channel without an approvalDestination cannot ask, so the request is rejected at once", async () => {
    const ops = createMockGateway({ kind: "push", type: "opsbot" });
    const r = await openRig({ channel: "opsbot", extraGateways: [ops] });
    const handle = r.runs.start({
      input: "use delete_file b.txt",
      userId: "alice",
      conversationId: "c2",
    });
    await handle.done;
    await until(async () => (await memoryOf(r, "alice", "c2")).length > 0, "the turn to end");
    expect(ops.decisionRequests).toEqual([]);
    const tool = (await memoryOf(r, "alice", "c2")).find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("approvalDestination");
  });

  it("only the thread's participant can decide on a push platform; anyone else is refused", async () => {
    const r = await openRig({ gateway: { kind: "push", type: "chat" } });
    await r.gateway.inject({ thread: "room", text: "use delete_file c.txt", author: "alice-id" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const id = r.gateway.decisionRequests[0]!.requestId;
    expect(await r.gateway.decide(id, "approve", "mallory-id")).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    // A stranger typing "yes" in the room is a message, not a decision.
    await r.gateway.inject({ thread: "room", text: "yes", author: "mallory-id" });
    await new Promise((r) => setTimeout(r, 50));
    expect(r.executed).toEqual([]);
    expect(await r.gateway.decide(id, "approve", "alice-id")).toMatchObject({ ok: true });
    await until(() => r.executed.length === 1, "the approved tool");
    expect((await r.db.interactions.get(id))?.status).toBe("resolved");
  });
});
