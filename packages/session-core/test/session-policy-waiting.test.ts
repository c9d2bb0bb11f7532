// The busy policy on a thread whose run waits for a decision (spec gateways §3): a reply that reads
// as a decision but may not decide is an ordinary message, `steer` has no running turn to splice
// into, and `interrupt` records who rejected the request and why.
import { describe, expect, it } from "vitest";
import { type Rig, until, useRig } from "./session-harness.js";

const T = "room-3";
const openRig = useRig();

/** `author` asks for a tool that needs approval; resolves with the open request id. */
async function suspend(r: Rig, author = "alice-id"): Promise<string> {
  await r.gateway.inject({ thread: T, text: "use delete_file report.txt", author });
  await until(() => r.session.snapshot("mock", T).pendingRequestId !== undefined, "the open request");
  return r.session.snapshot("mock", T).pendingRequestId as string;
}

describe("a typed decision from someone who may not decide", () => {
  it("is handled as a message: it waits behind the run and gets its own turn after it", async () => {
    const r = await openRig({
      gatewaySession: { policy: "queue" },
      gateway: { kind: "push", type: "mock", capabilities: { interactiveActions: false } },
    });
    const requestId = await suspend(r);
    await r.gateway.inject({ thread: T, text: "yes", author: "mallory-id" });
    await until(() => r.session.snapshot("mock", T).queued === 1, "the stranger's yes queued");
    expect(await r.db.interactions.get(requestId)).toMatchObject({ status: "open" });
    const notApplied = r.logs
      .lines()
      .filter((l) => l.msg === "text looked like a decision but was not applied; handled as a message");
    expect(notApplied).toMatchObject([{ outcome: { ok: false, code: "forbidden" } }]);

    await r.gateway.inject({ thread: T, text: "yes", author: "alice-id" });
    await r.session.idle();
    expect(r.executed).toEqual(["use delete_file report.txt"]);
    expect(r.runs.starts.map((s) => s.input)).toEqual(["use delete_file report.txt", "yes"]);
    expect(r.gateway.textsTo(T).at(-1)).toContain('You said: "yes"');
  });
});

describe("steer on a thread waiting for a decision", () => {
  it("queues a message as its own turn, and answers one beyond maxQueueDepth with the busy reply", async () => {
    const r = await openRig({ gatewaySession: { policy: "steer", maxQueueDepth: 1, busyReply: "Busy." } });
    const requestId = await suspend(r);
    await r.gateway.inject({ thread: T, text: "first aside" });
    await until(() => r.session.snapshot("mock", T).queued === 1, "the first aside queued");
    await r.gateway.inject({ thread: T, text: "second aside" });
    await until(() => r.gateway.textsTo(T).includes("Busy."), "the busy reply");
    expect(r.session.snapshot("mock", T)).toMatchObject({ queued: 1, phase: "suspended" });

    expect(await r.gateway.decide(requestId, "approve")).toMatchObject({ ok: true });
    await r.session.idle();
    expect(r.runs.starts.map((s) => s.input)).toEqual(["use delete_file report.txt", "first aside"]);
    const texts = r.gateway.textsTo(T);
    expect(texts).toContain("The tool delete_file returned: deleted.");
    expect(texts.at(-1)).toContain('You said: "first aside"');
    expect(texts.join("\n")).not.toContain("second aside");
  });
});

describe("interrupt on a thread waiting for a decision", () => {
  it("records the rejection as the session's, with the reason the run is told", async () => {
    const r = await openRig({ gatewaySession: { policy: "interrupt" } });
    const requestId = await suspend(r);
    await r.gateway.inject({ thread: T, text: "forget it" });
    await r.session.idle();
    expect(await r.db.interactions.get(requestId)).toMatchObject({
      status: "resolved",
      decision: {
        decision: "reject",
        reason: "interrupted by a new message",
        decidedBy: "session:interrupt",
      },
    });
    expect(r.gateway.decided).toMatchObject([
      { requestId, decision: "reject", decidedBy: "session:interrupt" },
    ]);
  });
});

describe("a thread whose waiting request the store no longer has (pruned or removed behind the session's back)", () => {
  it.each(["queue", "interrupt"] as const)(
    "%s: a typed reply is an ordinary message: it waits behind the run, with no error, and runs after it",
    async (policy) => {
      const r = await openRig({ gatewaySession: { policy }, gateway: { kind: "push", type: "mock" } });
      const requestId = await suspend(r);
      const get = r.db.interactions.get.bind(r.db.interactions);
      r.db.interactions.get = async (id) => (id === requestId ? undefined : get(id));
      await r.gateway.inject({ thread: T, text: "yes", author: "alice-id" });
      await until(() => r.session.snapshot("mock", T).queued === 1, "the reply queued");
      await r.session.idle();
      expect(r.logs.lines().filter((l) => l.msg === "session work failed")).toEqual([]);
      expect(r.session.snapshot("mock", T)).toMatchObject({
        phase: "suspended",
        pendingRequestId: requestId,
      });

      r.db.interactions.get = get;
      expect(await r.gateway.decide(requestId, "approve", "alice-id")).toMatchObject({ ok: true });
      await r.session.idle();
      expect(r.executed).toEqual(["use delete_file report.txt"]);
      expect(r.runs.starts.map((s) => s.input)).toEqual(["use delete_file report.txt", "yes"]);
    },
  );
});
