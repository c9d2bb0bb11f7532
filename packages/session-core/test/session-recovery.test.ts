// What recovery picks up after a process died: a decided approval whose tool was running (on a
// gateway thread and elsewhere), a message of a gateway no longer configured, and open requests
// asked again on every boot.
import { RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { describe, expect, it } from "vitest";
import { createMockGateway } from "../src/testing/index.js";
import { crash, diedWhileApprovedRunElsewhereRan, recordedNotRun } from "./recovery-crashes.js";
import { Gates, tempDir, testAgent, until, useRig, withApprovalRoom } from "./session-harness.js";

const T = "T";
const open = useRig();

/** Runs from elsewhere (no gateway origin) that suspended; the process died before any session asked for them. */
async function suspendedElsewhere(dir: string, users: string[]): Promise<void> {
  const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
  const runs = new RunManager({
    agent: testAgent(new Gates(), [], undefined, "ops"),
    memory: db.createMemory({ canSummarize: false }),
    runStore: db.runStore,
    logger: { info() {}, warn() {}, error() {} },
  });
  for (const user of users) {
    const run = runs.start({ input: `use delete_file ${user}.txt`, userId: user, conversationId: "c1" });
    expect((await run.done).status).toBe("suspended");
  }
  db.close();
}

describe("recovery after a crash", () => {
  it("continues an approved turn whose tool was running on its thread, once, before the message queued behind it", async () => {
    const dir = tempDir();
    const a = await open({ dir, gatewaySession: { policy: "queue" } });
    await a.gateway.inject({ thread: T, text: "use slow_delete x.txt" });
    await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
    const requestId = a.gateway.decisionRequests[0]?.requestId ?? "";
    expect(await a.gateway.decide(requestId, "approve")).toMatchObject({ ok: true });
    await until(() => a.gates.calls.length === 1, "the approved tool running");
    await a.gateway.inject({ thread: T, text: "after" });
    await until(async () => (await a.db.inbox.unfinished()).length === 2, "the next message recorded");
    await crash(a);

    const gates = new Gates();
    gates.openAll();
    const b = await open({ dir, gatewaySession: { policy: "queue" }, gates });
    await until(() => b.gateway.textsTo(T).length === 2, "two replies");
    await b.session.idle();
    // The continuation is not a new turn; the tool that was running is not run a second time.
    expect(b.runs.starts.map((s) => s.input)).toEqual(["after"]);
    expect([...a.executed, ...b.executed]).toEqual([]);
    const [continued, next] = b.gateway.textsTo(T);
    expect(continued).toContain("slow_delete");
    expect(next).toContain("after");
    expect(b.gateway.textsTo(T)).toHaveLength(2);
    expect(await b.db.inbox.unfinished()).toEqual([]);
    expect(await b.db.runStore.get(`gw:mock:${T}`)).toBeUndefined();
  });

  it("continues an approved run that is not a gateway turn on its own, and logs how it ended", async () => {
    const dir = tempDir();
    const threadId = await diedWhileApprovedRunElsewhereRan(dir);

    const gates = new Gates();
    gates.openAll();
    const b = await open({ dir, gates });
    await until(
      () => b.logs.lines().some((l) => l.msg === "continued run ended"),
      "the continued run's end logged",
    );
    const ended = b.logs.lines().find((l) => l.msg === "continued run ended");
    expect(ended).toMatchObject({ threadId, status: "completed" });
    expect(await b.db.runStore.get(threadId)).toBeUndefined();
    // Not a gateway turn: nothing is sent, no turn starts, and the tool is not run again.
    expect(b.gateway.sent).toEqual([]);
    expect(b.runs.starts).toEqual([]);
    expect(b.executed).toEqual([]);
  });

  it("leaves a message of a gateway that is no longer configured as it is, and says so", async () => {
    const dir = tempDir();
    await recordedNotRun(dir, T, ["for a removed gateway"], "gone");

    const r = await open({ dir });
    await r.session.idle();
    expect(r.runs.starts).toEqual([]);
    expect((await r.db.inbox.unfinished()).map((x) => [x.gateway, x.status])).toEqual([["gone", "queued"]]);
    const warned = r.logs
      .lines()
      .filter((l) => l.msg === "unfinished message of an unregistered gateway left as is");
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ gateway: "gone" });
  });

  it("asks an open request again on every restart, with its expiry, and only once each time", async () => {
    const dir = tempDir();
    const a = await open({ dir, expiresAfterSeconds: 3_600 });
    // The platform's context of the message (e.g. a Slack channel) goes with the request each time.
    const meta = { channel: "C1" };
    await a.session.deliver({
      gateway: "mock",
      dedupKey: "m1",
      thread: T,
      text: "use delete_file keep.txt",
      author: { id: "user-1" },
      meta,
    });
    await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
    const asked = a.gateway.decisionRequests[0];
    expect(asked).toMatchObject({ meta });
    expect(asked?.expiresAt).toBeDefined();
    await crash(a);

    for (const boot of [1, 2]) {
      const b = await open({ dir, expiresAfterSeconds: 3_600 });
      await until(() => b.gateway.decisionRequests.length > 0, `the request asked again (restart ${boot})`);
      await b.session.idle();
      expect(b.gateway.decisionRequests).toHaveLength(1);
      expect(b.gateway.decisionRequests[0]).toMatchObject({
        requestId: asked?.requestId,
        expiresAt: asked?.expiresAt,
        toolName: "delete_file",
        meta,
      });
      await crash(b);
    }
  });

  it("asks an open request stored without an expiry again without one", async () => {
    const dir = tempDir();
    // The store's expiry is optional (a request written by another writer may have none).
    const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
    const save = db.interactions.save.bind(db.interactions);
    db.interactions.save = ({ expiresAt: _, ...request }) => save(request);
    try {
      const a = await open({ dir, store: db });
      await a.gateway.inject({ thread: T, text: "use delete_file keep.txt" });
      await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
      await crash(a);
    } finally {
      db.close();
    }
    const b = await open({ dir });
    await until(() => b.gateway.decisionRequests.length > 0, "the request asked again");
    expect(b.gateway.decisionRequests[0]).toMatchObject({ toolName: "delete_file" });
    expect(b.gateway.decisionRequests[0]).not.toHaveProperty("expiresAt");
  });

  it("asks once, after a restart, for an approval-channel run that suspended before its request was saved", async () => {
    const dir = tempDir();
    await suspendedElsewhere(dir, ["alice"]);
    const { ops, options } = withApprovalRoom(dir);
    const b = await open(options);
    await until(() => ops.textsTo("ops-room").length > 0, "the request asked in the approval room");
    await b.session.idle();
    expect(ops.textsTo("ops-room")).toHaveLength(1);
    expect(ops.textsTo("ops-room")[0]).toContain("delete_file");
  });

  it("asks after a restart only for the approval-channel runs this session owns", async () => {
    const dir = tempDir();
    await suspendedElsewhere(dir, ["alice", "bob"]);
    const { ops, options } = withApprovalRoom(dir);
    const b = await open({ ...options, ownsRun: (run) => run.options.userId === "alice" });
    await until(() => ops.textsTo("ops-room").length > 0, "the owned run's request in the approval room");
    await b.session.idle();
    expect(ops.textsTo("ops-room")).toHaveLength(1);
    expect(ops.textsTo("ops-room")[0]).toContain("alice.txt");
    // bob's run waits, unasked, for the session that owns it.
    expect((await b.db.runStore.list()).map((r) => r.options.userId).sort()).toEqual(["alice", "bob"]);
  });

  it("starts and asks nothing for an open request whose gateway is no longer configured", async () => {
    const dir = tempDir();
    const other = createMockGateway({ name: "other" });
    const a = await open({ dir, extraGateways: [other] });
    await other.inject({ thread: T, text: "use delete_file keep.txt" });
    await until(() => other.decisionRequests.length === 1, "the approval request on the other gateway");
    await crash(a);

    const b = await open({ dir });
    await b.session.idle();
    expect(b.gateway.decisionRequests).toEqual([]);
    expect(b.gateway.sent).toEqual([]);
    expect((await b.db.interactions.listOpen()).map((i) => i.gateway)).toEqual(["other"]);
  });
});
