// No conversation is blocked for good: requests expire, a request nothing can render is rejected
// at once, and only the thread's own participant (or a configured approver) can decide.
import { afterEach, describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { type Rig, removeDir, rig, until } from "./session-harness.js";

let current: Rig | undefined;
afterEach(async () => {
  if (current) {
    await current.close();
    removeDir(current.dir);
    current = undefined;
  }
});

const memoryOf = (r: Rig, userId: string, conversationId: string) =>
  r.db.createMemory({ canSummarize: false }).load({ userId, conversationId });

describe("approval requests end", () => {
  it("an open request is rejected when it expires, the run goes on with the rejection, and the next message runs", async () => {
    current = await rig({ expiresAfterSeconds: 60 });
    await current.gateway.inject({ thread: "T", text: "use delete_file old.txt" });
    await until(() => current?.gateway.decisionRequests.length === 1, "the request");
    const request = current.gateway.decisionRequests[0]!;
    expect(request.expiresAt).toBe(request.createdAt + 60_000);
    expect(await current.session.expireApprovals(request.createdAt + 59_000)).toBe(0);
    expect(await current.session.expireApprovals(request.createdAt + 60_000)).toBe(1);
    await current.session.idle();
    expect(current.executed).toEqual([]);
    expect(await current.db.interactions.get(request.requestId)).toMatchObject({ status: "resolved" });
    const tool = (await memoryOf(current, "mock", "T")).find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("no decision within 1 minute; the request expired");
    await current.gateway.inject({ thread: "T", text: "are you there" });
    await current.session.idle();
    expect(current.gateway.textsTo("T").at(-1)).toContain("are you there");
  });

  it("expiry rejects a request on a push platform, where only the thread's participant may decide", async () => {
    current = await rig({ expiresAfterSeconds: 60, gateway: { kind: "push", type: "chat" } });
    await current.gateway.inject({ thread: "room", text: "use delete_file d.txt", author: "alice-id" });
    await until(() => current?.gateway.decisionRequests.length === 1, "the request");
    const request = current.gateway.decisionRequests[0]!;
    expect(await current.session.expireApprovals(request.createdAt + 60_000)).toBe(1);
    await current.session.idle();
    expect(current.executed).toEqual([]);
    expect(await current.db.interactions.get(request.requestId)).toMatchObject({
      status: "resolved",
      decision: { decision: "reject", decidedBy: "session:expired" },
    });
  });

  it("an open request expires after 24 hours when no expiry is configured", async () => {
    current = await rig();
    await current.gateway.inject({ thread: "T", text: "use delete_file e.txt" });
    await until(() => current?.gateway.decisionRequests.length === 1, "the request");
    const request = current.gateway.decisionRequests[0]!;
    const day = 24 * 60 * 60 * 1000;
    expect(request.expiresAt).toBe(request.createdAt + day);
    expect(await current.session.expireApprovals(request.createdAt + day - 1)).toBe(0);
    // Expired late (the sweep ran 30 minutes after): the reason still names the request's own span.
    expect(await current.session.expireApprovals(request.createdAt + day + 30 * 60_000)).toBe(1);
    await current.session.idle();
    const tool = (await memoryOf(current, "mock", "T")).find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("no decision within 1440 minutes; the request expired");
  });

  it("a run from elsewhere is rejected at once, with the reason in the tool result, when no approval channel exists", async () => {
    current = await rig({ channel: "nowhere" });
    const handle = current.runs.start({
      input: "use delete_file a.txt",
      userId: "alice",
      conversationId: "c1",
    });
    await handle.done;
    await until(async () => (await memoryOf(current as Rig, "alice", "c1")).length > 0, "the turn to end");
    const tool = (await memoryOf(current, "alice", "c1")).find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain('approval channel \\"nowhere\\" is not available');
    expect(current.executed).toEqual([]);
    expect(await current.runs.pending(handle.threadId, { userId: "alice" })).toBeUndefined();
    // The conversation is free again.
    const next = current.runs.start({ input: "hello", userId: "alice", conversationId: "c1" });
    expect((await next.done).status).toBe("completed");
  });

  it("a push platform channel without an approvalDestination cannot ask, so the request is rejected at once", async () => {
    const ops = createMockGateway({ kind: "push", type: "opsbot" });
    current = await rig({ channel: "opsbot", extraGateways: [ops] });
    const handle = current.runs.start({
      input: "use delete_file b.txt",
      userId: "alice",
      conversationId: "c2",
    });
    await handle.done;
    await until(async () => (await memoryOf(current as Rig, "alice", "c2")).length > 0, "the turn to end");
    expect(ops.decisionRequests).toEqual([]);
    const tool = (await memoryOf(current, "alice", "c2")).find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("approvalDestination");
  });

  it("only the thread's participant can decide on a push platform; anyone else is refused", async () => {
    current = await rig({ gateway: { kind: "push", type: "chat" } });
    await current.gateway.inject({ thread: "room", text: "use delete_file c.txt", author: "alice-id" });
    await until(() => current?.gateway.decisionRequests.length === 1, "the request");
    const id = current.gateway.decisionRequests[0]!.requestId;
    expect(await current.gateway.decide(id, "approve", "mallory-id")).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    // A stranger typing "yes" in the room is a message, not a decision.
    await current.gateway.inject({ thread: "room", text: "yes", author: "mallory-id" });
    await new Promise((r) => setTimeout(r, 50));
    expect(current.executed).toEqual([]);
    expect(await current.gateway.decide(id, "approve", "alice-id")).toMatchObject({ ok: true });
    await until(() => current?.executed.length === 1, "the approved tool");
    expect((await current.db.interactions.get(id))?.status).toBe("resolved");
  });
});
