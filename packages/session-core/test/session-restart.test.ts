// Kill and restart: queued messages and a pending approval survive on the SQLite file and each runs once.
import { afterAll, describe, expect, it } from "vitest";
import { RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { Gates, type Rig, removeDir, rig, tempDir, testAgent, until } from "./session-harness.js";

const userTexts = async (r: Rig, thread: string) =>
  (await r.db.createMemory({ canSummarize: false }).load({ userId: "mock", conversationId: thread }))
    .filter((m) => m.role === "user")
    .map((m) => m.content);

describe("restart", () => {
  const dir = tempDir();
  afterAll(() => removeDir(dir));

  it("replays queued messages and the pending approval after a restart, running each exactly once", async () => {
    // --- first process: one turn stuck mid-run, two queued behind it, one approval pending.
    const a = await rig({ dir, gatewaySession: { policy: "queue" } });
    await a.gateway.inject({ thread: "T1", text: "use wait_gate first" });
    await until(() => a.gates.calls.length === 1, "the first turn at its gate");
    await a.gateway.inject({ thread: "T1", text: "q1" });
    await a.gateway.inject({ thread: "T1", text: "q2" });
    await a.gateway.inject({ thread: "T2", text: "use delete_file keep.txt" });
    await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
    await until(() => a.session.snapshot("mock", "T1").queued === 2, "two queued");
    const requestId = a.gateway.decisionRequests[0]?.requestId;
    expect((await a.db.inbox.unfinished()).map((r) => [r.thread, r.text, r.status])).toEqual([
      ["T1", "use wait_gate first", "running"],
      ["T1", "q1", "queued"],
      ["T1", "q2", "queued"],
      ["T2", "use delete_file keep.txt", "running"],
    ]);
    // "Kill": close without finishing anything (the stuck turn's gate never opens in this process).
    await a.close(50);

    // --- second process on the same file.
    const gates = new Gates();
    gates.openAll();
    const b = await rig({ dir, gatewaySession: { policy: "queue" }, gates });
    await until(() => b.gateway.decisionRequests.length === 1, "the approval request rendered again");
    expect(b.gateway.decisionRequests[0]?.requestId).toBe(requestId);
    await b.session.idle();
    // The turn that never persisted runs again, then the queue in order; the suspended one is not re-run.
    expect(b.runs.starts.map((s) => [s.conversationId, s.input])).toEqual([
      ["T1", "use wait_gate first"],
      ["T1", "q1"],
      ["T1", "q2"],
    ]);
    expect(await b.gateway.decide(requestId ?? "", "approve")).toMatchObject({ ok: true });
    await b.session.idle();
    expect(a.executed).toEqual([]);
    expect(b.executed).toEqual(["use delete_file keep.txt"]);
    expect(b.gateway.textsTo("T2")).toEqual(["The tool delete_file returned: deleted."]);
    expect(await userTexts(b, "T1")).toEqual(["use wait_gate first", "q1", "q2"]);
    expect(await userTexts(b, "T2")).toEqual(["use delete_file keep.txt"]);
    expect(await b.db.inbox.unfinished()).toEqual([]);
    await b.close();

    // --- a third start finds nothing left to run.
    const c = await rig({ dir, gatewaySession: { policy: "queue" } });
    await c.session.idle();
    expect(c.runs.starts).toEqual([]);
    expect(c.gateway.sent).toEqual([]);
    expect(c.gateway.decisionRequests).toEqual([]);
    await c.close();
  });

  it("does not run a turn again when it was persisted before the crash", async () => {
    const dir2 = tempDir();
    try {
      const a = await rig({ dir: dir2 });
      await a.gateway.inject({ thread: "T", text: "hello" });
      await a.session.idle();
      expect(a.gateway.textsTo("T")).toHaveLength(1);
      await a.close();
      const b = await rig({ dir: dir2 });
      await b.session.idle();
      expect(b.runs.starts).toEqual([]);
      expect(await userTexts(b, "T")).toEqual(["hello"]);
      await b.close();
    } finally {
      removeDir(dir2);
    }
  });

  it("a graceful stop lets a running turn finish and commit first, so the next start does not run it again", async () => {
    const dir3 = tempDir();
    try {
      const a = await rig({ dir: dir3 });
      await a.gateway.inject({ thread: "T", text: "use wait_gate slow" });
      await until(() => a.gates.calls.length === 1, "the turn at its gate");
      const stopping = a.close(5_000);
      await new Promise((r) => setTimeout(r, 50));
      await a.gates.openNext();
      await stopping;
      const b = await rig({ dir: dir3 });
      await b.session.idle();
      expect(b.runs.starts).toEqual([]);
      expect(await userTexts(b, "T")).toEqual(["use wait_gate slow"]);
      expect([...a.gateway.textsTo("T"), ...b.gateway.textsTo("T")]).toHaveLength(1);
      await b.close();
    } finally {
      removeDir(dir3);
    }
  });

  it("steered text is kept until the turn that absorbed it is saved: after a crash mid-turn it still runs", async () => {
    const dir4 = tempDir();
    try {
      const a = await rig({ dir: dir4, gatewaySession: { policy: "steer" } });
      await a.gateway.inject({ thread: "T", text: "use wait_gate first" });
      await until(() => a.gates.calls.length === 1, "the turn at its gate");
      await a.gateway.inject({ thread: "T", text: "and also this" });
      await until(async () => (await a.db.inbox.unfinished()).length === 2, "both recorded");
      await a.close(50); // the turn never commits: a crash as far as the store knows
      const gates = new Gates();
      gates.openAll();
      const b = await rig({ dir: dir4, gatewaySession: { policy: "steer" }, gates });
      await b.session.idle();
      expect((await userTexts(b, "T")).join("|")).toContain("and also this");
      expect(await b.db.inbox.unfinished()).toEqual([]);
      await b.close();
    } finally {
      removeDir(dir4);
    }
  });

  it("a run that suspended but whose request was never saved (crash in between) is asked exactly once after a restart", async () => {
    const dir5 = tempDir();
    try {
      // The first process: the run suspends and its inbox record is running, then the process dies
      // before the session saved the interaction request.
      const db = ChatDb.open({ appRoot: dir5, path: "data/chat.db" });
      const origin = { gateway: "mock", thread: "T", author: { id: "user-1" } };
      const rec = await db.inbox.accept({
        gateway: "mock",
        dedupKey: "m1",
        thread: "T",
        text: "use delete_file a.txt",
        origin,
      });
      if (!rec.accepted) throw new Error("not accepted");
      await db.inbox.markRunning(rec.id);
      const runs = new RunManager({
        agent: testAgent(new Gates(), []),
        memory: db.createMemory({ canSummarize: false }),
        runStore: db.runStore,
      });
      const handle = runs.start({
        input: "use delete_file a.txt",
        threadId: "gw:mock:T",
        userId: "mock",
        conversationId: "T",
        origin,
      });
      expect((await handle.done).status).toBe("suspended");
      db.close();

      const b = await rig({ dir: dir5 });
      await until(() => b.gateway.decisionRequests.length > 0, "the request");
      await b.session.idle();
      expect(b.gateway.decisionRequests).toHaveLength(1);
      await b.close();
    } finally {
      removeDir(dir5);
    }
  });
});
