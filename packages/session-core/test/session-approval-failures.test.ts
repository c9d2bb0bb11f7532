// When resuming a run fails, or its gateway is gone: a decision the run manager cannot apply is
// answered for what it is (the run is gone: already decided; anything else is thrown, not called a
// bad decision), an unrenderable request whose rejection fails is logged, and a request whose
// gateway is no longer configured still expires.
import { AgentsvcError } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { crash } from "./recovery-crashes.js";
import { type CountingRunManager, tempDir, until, useRig } from "./session-harness.js";

const T = "room-f";
const openRig = useRig();

/** The run manager's next resume fails with `err` (later ones work). */
function failNextResume(err: Error) {
  return (runs: CountingRunManager) => {
    const resume = runs.resume.bind(runs);
    let failed = false;
    runs.resume = (...args: Parameters<CountingRunManager["resume"]>) => {
      if (failed) return resume(...args);
      failed = true;
      return Promise.reject(err);
    };
  };
}

describe("a decision the run manager cannot apply", () => {
  it("for a run that is gone by then is refused as already decided, with the run manager's reason", async () => {
    const gone = new AgentsvcError("not_found", "no suspended run on this thread", 404);
    const r = await openRig({ adaptRuns: failNextResume(gone) });
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const id = r.gateway.decisionRequests[0]!.requestId;
    expect(await r.gateway.decide(id, "approve")).toEqual({
      ok: false,
      code: "already_decided",
      message: "no suspended run on this thread",
    });
    expect(r.executed).toEqual([]);
  });

  it.each([
    [
      "a run manager error that is not the caller's",
      new AgentsvcError("store_down", "store unavailable", 503),
    ],
    ["any other error", new Error("store unavailable")],
  ])("on %s throws it, instead of calling it a bad decision, and the request stays open", async (_, err) => {
    const r = await openRig({ adaptRuns: failNextResume(err) });
    await r.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => r.gateway.decisionRequests.length === 1, "the request");
    const id = r.gateway.decisionRequests[0]!.requestId;
    await expect(r.gateway.decide(id, "approve")).rejects.toBe(err);
    expect(await r.db.interactions.get(id)).toMatchObject({ status: "open" });
    // The next press works: the failed one left nothing behind.
    expect(await r.gateway.decide(id, "approve")).toMatchObject({ ok: true });
    await until(() => r.executed.length === 1, "the approved tool");
  });
});

describe("a request nothing can render, whose rejection fails", () => {
  it("is logged with its thread, and the suspension does not fail the session", async () => {
    const r = await openRig({ channel: "nowhere", adaptRuns: failNextResume(new Error("resume broke")) });
    const handle = r.runs.start({ input: "use delete_file a.txt", userId: "alice", conversationId: "c1" });
    expect((await handle.done).status).toBe("suspended");
    const failed = () =>
      r.logs.lines().filter((l) => l.msg === "could not reject the unrenderable approval request");
    await until(() => failed().length === 1, "the error log");
    expect(failed()).toMatchObject([
      { level: 50, threadId: handle.threadId, err: { message: "resume broke" } },
    ]);
    expect(r.executed).toEqual([]);
  });
});

describe("an open request whose gateway is no longer configured", () => {
  it("still expires: the run goes on with the rejection, with no decided notice to send", async () => {
    const dir = tempDir();
    const other = createMockGateway({ name: "other" });
    const a = await openRig({ dir, extraGateways: [other], expiresAfterSeconds: 60 });
    await other.inject({ thread: T, text: "use delete_file keep.txt" });
    await until(() => other.decisionRequests.length === 1, "the request on the other gateway");
    const req = other.decisionRequests[0]!;
    await crash(a);

    const b = await openRig({ dir, expiresAfterSeconds: 60 });
    expect(await b.session.expireApprovals(req.expiresAt)).toBe(1);
    expect(await b.db.interactions.get(req.requestId)).toMatchObject({
      status: "resolved",
      decision: { decision: "reject", decidedBy: "session:expired" },
    });
    await b.session.idle();
    expect(b.executed).toEqual([]);
    expect((await b.db.outbox.list("other", T)).filter((row) => row.idemKey.endsWith(":decided"))).toEqual(
      [],
    );
  });
});
