// What asking and deciding set going: the request and the decided notice go out at once (not at
// the sender's next idle look), a cancel at the prompt names its reason, the session waits for an
// approved run from elsewhere, and platforms without decided notices or without an author still work.
import { describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { memoryOf, type Rig, until, useRig } from "./session-harness.js";

const T = "room-8";
/** Longer than any wait below: a piece that goes out went out because the sender was woken. */
const SLOW_IDLE_LOOK = { idlePollMs: 120_000 };

const openRig = useRig();

describe("the outbox is woken", () => {
  it("when a request is asked: it reaches the platform at once", async () => {
    const r = await openRig({ outbox: SLOW_IDLE_LOOK });
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request on the platform");
  });

  it("when a request from elsewhere is decided: the decided notice reaches the platform at once", async () => {
    const ops = createMockGateway({ name: "ops" });
    const r = await openRig({
      channel: "ops",
      extraGateways: [ops],
      entries: [{ name: "ops", type: "mock", approvalDestination: "ops-room" }],
      outbox: SLOW_IDLE_LOOK,
    });
    await r.runs.start({ input: "use delete_file web.txt", userId: "alice", conversationId: "c1" }).done;
    await until(() => ops.decisionRequests.length === 1, "the request");
    // The sender has gone quiet (nothing left to send) before the decision.
    await r.session.idle();
    expect(await ops.decide(ops.decisionRequests[0]!.requestId, "approve")).toMatchObject({ ok: true });
    await until(() => ops.decided.length === 1, "the decided notice on the platform");
  });
});

describe("a cancel at the prompt", () => {
  async function cancelLog(decide: (r: Rig, requestId: string) => Promise<unknown>): Promise<unknown[]> {
    const cancelled: unknown[] = [];
    const runLogger = {
      info: (obj: object, msg?: string) => {
        if (msg === "run cancelled") cancelled.push(obj);
      },
      warn() {},
      error() {},
    };
    const r = await openRig({ gatewaySession: { policy: "interrupt" }, runLogger });
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    await decide(r, r.gateway.decisionRequests[0]!.requestId);
    await r.session.idle();
    expect(r.executed).toEqual([]);
    return cancelled;
  }

  it("with no reason given (the cli's quit) is logged as cancelled at the approval prompt", async () => {
    const cancelled = await cancelLog((r, id) =>
      r.gateway.decide(id, { decision: "reject", cancelRun: true }),
    );
    expect(cancelled).toEqual([{ threadId: `gw:mock:${T}`, reason: "cancelled at the approval prompt" }]);
  });

  it("by an interrupting message is logged with the interrupt's reason", async () => {
    const cancelled = await cancelLog((r) => r.gateway.inject({ thread: T, text: "forget it" }));
    expect(cancelled).toEqual([{ threadId: `gw:mock:${T}`, reason: "interrupted by a new message" }]);
  });
});

describe("an approved run from elsewhere", () => {
  it("is work the session waits for: idle resolves once the run has ended", async () => {
    const ops = createMockGateway({ name: "ops" });
    const r = await openRig({
      channel: "ops",
      extraGateways: [ops],
      entries: [{ name: "ops", type: "mock", approvalDestination: "ops-room" }],
    });
    const handle = r.runs.start({ input: "use slow_delete web.txt", userId: "alice", conversationId: "c1" });
    await handle.done;
    await until(() => ops.decisionRequests.length === 1, "the request");
    await ops.decide(ops.decisionRequests[0]!.requestId, "approve");
    await until(() => r.gates.calls.length === 1, "the approved tool at its gate");
    const idle = r.session.idle();
    r.gates.openAll();
    await idle;
    expect(r.runs.get(handle.threadId)?.status).not.toBe("running");
    const memory = await memoryOf(r, "alice", "c1");
    expect(memory.at(-1)).toMatchObject({ role: "assistant" });
    expect(JSON.stringify(memory.at(-1))).toContain("The tool slow_delete returned: deleted.");
  });
});

describe("a run whose request nothing can render", () => {
  it("is rejected at once as work the session waits for: idle resolves once the run has ended", async () => {
    // Slow tokens: the rejected run's answer is still streaming when the rejection itself is done.
    const r = await openRig({ channel: "nowhere", tokenDelayMs: 20 });
    const handle = r.runs.start({ input: "use delete_file a.txt", userId: "alice", conversationId: "c7" });
    await handle.done;
    await r.session.idle();
    const memory = await memoryOf(r, "alice", "c7");
    expect(memory.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });
});

describe("platform differences", () => {
  it("a platform without decided notices still takes the decision, and gets no notice queued", async () => {
    const plain = createMockGateway({ name: "plain" });
    Object.defineProperty(plain, "onDecided", { value: undefined });
    const r = await openRig({ extraGateways: [plain] });
    await plain.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => plain.decisionRequests.length === 1, "the request");
    expect(await plain.decide(plain.decisionRequests[0]!.requestId, "approve")).toMatchObject({ ok: true });
    await r.session.idle();
    expect(r.executed).toEqual(["use delete_file report.txt"]);
    // No notice is queued for a platform that cannot take one.
    const rows = await r.db.outbox.list("plain", T);
    expect(rows.map((row) => row.idemKey)).toContain(`${plain.decisionRequests[0]!.requestId}:render`);
    expect(rows.filter((row) => row.idemKey.endsWith(":decided"))).toEqual([]);
  });

  it("a run from a gateway thread whose origin names no author is asked in that thread", async () => {
    const r = await openRig();
    const handle = r.runs.start({
      input: "use delete_file a.txt",
      userId: "alice",
      conversationId: "c5",
      origin: { gateway: "mock", thread: "t-5" },
    });
    await handle.done;
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    expect(r.gateway.decisionRequests[0]).toMatchObject({ thread: "t-5", threadId: handle.threadId });
  });

  it("a request nothing can render is logged as an error naming the tool", async () => {
    const r = await openRig({ channel: "nowhere" });
    const handle = r.runs.start({ input: "use delete_file a.txt", userId: "alice", conversationId: "c6" });
    await handle.done;
    await until(async () => (await memoryOf(r, "alice", "c6")).length > 0, "the turn to end");
    const errors = r.logs.lines().filter((l) => l.level === 50);
    expect(errors).toMatchObject([
      {
        threadId: handle.threadId,
        tool: "delete_file",
        msg: expect.stringMatching(/^approval request rejected at once: no approval channel could ask/),
      },
    ]);
  });
});
