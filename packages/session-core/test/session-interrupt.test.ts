// `policy: interrupt` on a thread whose run waits for a decision: only the requester or a configured
// approver may interrupt it (#22 item 6); anyone else's message queues behind it, as under `queue`.
import { describe, expect, it } from "vitest";
import { type Rig, until, useRig } from "./session-harness.js";

const T = "shared-thread";
const openRig = useRig();

/** A platform gateway (push: decisions are checked against the requester) with the interrupt policy. */
async function start(approvers?: string[]): Promise<Rig> {
  return openRig({
    gatewaySession: { policy: "interrupt" },
    gateway: { kind: "push", type: "mock" },
    ...(approvers ? { entries: [{ name: "mock", type: "mock", approvers }] } : {}),
  });
}

/** `requester` asks for a tool that needs approval; resolves with the open request id. */
async function suspend(r: Rig, requester: string): Promise<string> {
  await r.gateway.inject({ thread: T, text: "use delete_file report.txt", author: requester });
  await until(() => r.gateway.decisionRequests.length > 0, "the decision request");
  return r.gateway.decisionRequests[0]?.requestId as string;
}

describe("interrupt while a run waits for a decision", () => {
  it("queues a message from someone else in the thread instead of cancelling the requester's run", async () => {
    const r = await start();
    const requestId = await suspend(r, "alice");
    await r.gateway.inject({ thread: T, text: "drive-by comment", author: "mallory" });
    await until(() => r.session.snapshot("mock", T).queued === 1, "the drive-by message queued");
    expect(await r.db.interactions.get(requestId)).toMatchObject({ status: "open" });
    expect(r.session.snapshot("mock", T)).toMatchObject({ phase: "suspended", pendingRequestId: requestId });
    // The operator can see why the message did not interrupt.
    const queuedLog = r.logs
      .lines()
      .filter(
        (l) => l.msg === "interrupt: the author may not decide the waiting request; the message queues",
      );
    expect(queuedLog).toMatchObject([{ thread: T, requestId }]);

    // The requester still decides; the queued message runs after the run ends.
    expect(await r.gateway.decide(requestId, "approve", "alice")).toMatchObject({ ok: true });
    await r.session.idle();
    expect(r.executed).toEqual(["use delete_file report.txt"]);
    const texts = r.gateway.textsTo(T);
    expect(texts.some((t) => t.includes("The tool delete_file returned: deleted."))).toBe(true);
    expect(texts.at(-1)).toContain('You said: "drive-by comment"');
  });

  it("lets the requester interrupt their own waiting run", async () => {
    const r = await start();
    const requestId = await suspend(r, "alice");
    await r.gateway.inject({ thread: T, text: "never mind", author: "alice" });
    await r.session.idle();
    expect(r.executed).toEqual([]);
    expect(await r.db.interactions.get(requestId)).toMatchObject({
      status: "resolved",
      decision: { decision: "reject" },
    });
    expect(r.gateway.textsTo(T).at(-1)).toContain('You said: "never mind"');
  });

  it("lets a configured approver interrupt it", async () => {
    const r = await start(["boss"]);
    const requestId = await suspend(r, "alice");
    await r.gateway.inject({ thread: T, text: "stop that", author: "boss" });
    await r.session.idle();
    expect(r.executed).toEqual([]);
    expect(await r.db.interactions.get(requestId)).toMatchObject({ status: "resolved" });
    expect(r.gateway.textsTo(T).at(-1)).toContain('You said: "stop that"');
  });
});
