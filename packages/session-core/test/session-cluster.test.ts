// Two sessions over one SQLite file, sharing locks and announcements as instances share them
// through PostgreSQL (an in-process cluster): a thread runs on one instance at a time, a message
// recorded elsewhere reaches the holder, and a gone instance's threads are taken over.
import { describe, expect, it } from "vitest";
import { DEFAULT_BUSY_REPLY } from "../src/index.js";
import { createMemoryCluster, type MockStreamCall } from "../src/testing/index.js";
import { clusterRigs, rig, type Rig, type RigOptions, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

async function pair(gatewaySession?: RigOptions["gatewaySession"], options: Partial<RigOptions> = {}) {
  const dir = freshDir();
  const cluster = createMemoryCluster();
  const more = { ...(gatewaySession ? { gatewaySession } : {}), ...options };
  const a = await rig({ dir, coordination: cluster.instance("a"), ...more });
  const b = await rig({ dir, coordination: cluster.instance("b"), store: a.db, ...more });
  rigs.push(a, b);
  return { a, b, cluster };
}

let sent = 0;
/** A platform message with an id unique across instances (each mock counts its own ids). */
const say = (r: Rig, thread: string, text: string) => r.gateway.inject({ thread, text, id: `m${++sent}` });
const texts = (r: Rig[], thread: string) => r.flatMap((x) => x.gateway.textsTo(thread));
const starts = (r: Rig) => r.runs.starts.map((s) => s.input);
/**
 * Which instance runs a message is decided by who claims its thread first: the receiver right after
 * recording, or any instance's 100 ms sweep (under load the sweep sometimes won). A test that names
 * the instance running a thread's first turn gives it the thread's lock before the message arrives.
 */
const holdFirst = (cluster: ReturnType<typeof createMemoryCluster>, id: string, thread: string) =>
  cluster.instance(id).acquireThread(`gw:mock:${thread}`);

describe("several instances over one store", () => {
  it("runs a message recorded by another instance on the thread's holder, after the running turn, in order", async () => {
    const { a, b, cluster } = await pair();
    expect(await holdFirst(cluster, "a", "T")).toBe(true);
    await say(a, "T", "use wait_gate first");
    await until(() => a.gates.calls.length === 1, "the first turn at its gate");
    await say(b, "T", "q1");
    await say(b, "T", "q2");
    await until(() => a.session.snapshot("mock", "T").queued === 2, "both queued on the holder");
    a.gates.openAll();
    await until(() => texts([a, b], "T").length === 3, "three replies");
    expect(starts(a)).toEqual(["use wait_gate first", "q1", "q2"]);
    expect(starts(b)).toEqual([]);
    expect(texts([a, b], "T")[1]).toContain("q1");
    expect(texts([a, b], "T")[2]).toContain("q2");
    expect(await a.db.inbox.unfinished()).toEqual([]);
  });

  /**
   * Which instance runs a message is decided by who claims its thread first: the receiver right
   * after recording, or any instance's sweep. Tests that name the instance slow the sweep down, so
   * only the receiver's own claim is in play (under load a 100 ms sweep sometimes won the race).
   */
  const QUIET_SWEEP_MS = 60_000;

  it("lets an idle thread go, so the next message runs on whichever instance received it", async () => {
    const { a, b, cluster } = await pair(undefined, { sweepMs: QUIET_SWEEP_MS });
    await say(a, "T", "first");
    await until(() => texts([a, b], "T").length === 1, "the first reply");
    await until(() => !cluster.holders().has("gw:mock:T"), "the thread let go");
    await say(b, "T", "second");
    await until(() => texts([a, b], "T").length === 2, "the second reply");
    expect(starts(a)).toEqual(["first"]);
    expect(starts(b)).toEqual(["second"]);
  });

  it("sends every reply from the leading instance only", async () => {
    const { a, b, cluster } = await pair(undefined, { sweepMs: QUIET_SWEEP_MS });
    expect(cluster.leaderOf("session")).toBe("a");
    await say(b, "U", "hello from b");
    await until(() => a.gateway.textsTo("U").length === 1, "the reply, sent by a");
    expect(starts(b)).toEqual(["hello from b"]);
    expect(b.gateway.sent).toEqual([]);
  });

  it("takes over the threads and the outbox of an instance whose connection dropped", async () => {
    const { a, b, cluster } = await pair();
    expect(await holdFirst(cluster, "a", "T")).toBe(true);
    await say(a, "T", "use wait_gate first");
    await until(() => a.gates.calls.length === 1, "the turn at its gate on a");
    await say(a, "T", "queued behind it");
    // As if a's process died: its locks and its lead go; its turn never gets past the gate.
    cluster.drop("a");
    expect(cluster.leaderOf("session")).toBe("b");
    // b reruns the turn a never committed, then the queued message.
    b.gates.openAll();
    await until(() => starts(b).length === 2, "both messages run on b");
    expect(starts(b)).toEqual(["use wait_gate first", "queued behind it"]);
    await until(() => b.gateway.textsTo("T").length >= 2, "b sends the replies");
  });

  it("continues a turn whose approved tool was running on an instance that dropped, once, on the thread's new holder only", async () => {
    const { a, b, cluster } = await pair();
    expect(await holdFirst(cluster, "a", "T")).toBe(true);
    await say(a, "T", "use slow_delete report.txt");
    await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
    const requestId = a.gateway.decisionRequests[0]?.requestId as string;
    expect(await a.session.decide(requestId, { decision: "approve" }, "user-1")).toMatchObject({ ok: true });
    await until(() => a.gates.calls.length === 1, "the approved tool running on a");
    b.gates.openAll();
    // As if a's process died mid-tool: b leads now (its pass takes no thread) and adopts T.
    cluster.drop("a");
    await until(() => texts([a, b], "T").length === 1, "the continued turn's reply");
    await b.session.idle();
    // Continued, not run again from its message, and not a second time by the leader's own pass.
    expect(starts(b)).toEqual([]);
    expect([...a.executed, ...b.executed]).toEqual([]);
    expect(texts([a, b], "T")[0]).toContain("slow_delete");
    const boot = b.logs.lines().filter((l) => /continue|unregistered gateway/.test(String(l.msg)));
    expect(boot).toEqual([]);
    expect(await b.db.inbox.unfinished()).toEqual([]);
    expect(await b.db.runStore.get("gw:mock:T")).toBeUndefined();
  });

  it("a holder cut off without noticing does not commit the turn another instance took over: one turn, one reply", async () => {
    const { a, b, cluster } = await pair();
    expect(await holdFirst(cluster, "a", "T")).toBe(true);
    await say(a, "T", "use wait_gate first");
    await until(() => a.gates.calls.length === 1, "the turn at its gate on a");
    // a's connection is gone but a has not noticed: b's sweep finds the running record and reruns it.
    cluster.cut("a");
    await until(() => b.gates.calls.length === 1, "the same turn run again on b");
    // a's turn ends first: its commit is refused, and nothing of it is recorded or sent.
    a.gates.openAll();
    await a.session.idle();
    expect(texts([a, b], "T")).toEqual([]);
    expect((await a.db.inbox.unfinished()).map((r) => r.status)).toEqual(["running"]);
    b.gates.openAll();
    // At least one, then exactly one: a second send (a's sender still running) fails as itself.
    await until(() => texts([a, b], "T").length >= 1, "b's reply");
    await b.session.idle();
    expect(texts([a, b], "T")).toHaveLength(1);
    const memory = await b.db
      .createMemory({ canSummarize: false })
      .load({ userId: "mock", conversationId: "T" });
    expect(memory.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["use wait_gate first"]);
    expect(await b.db.inbox.unfinished()).toEqual([]);
  });

  it("applies the busy policy of the holder to a message recorded elsewhere (reject)", async () => {
    const { a, b, cluster } = await pair({ policy: "reject" });
    expect(await holdFirst(cluster, "a", "T")).toBe(true);
    await say(a, "T", "use wait_gate first");
    await until(() => a.gates.calls.length === 1, "the turn at its gate on a");
    await say(b, "T", "too soon");
    await until(() => texts([a, b], "T").length === 1, "the busy reply");
    expect(texts([a, b], "T")[0]).toBe(DEFAULT_BUSY_REPLY);
    a.gates.openAll();
    await until(() => texts([a, b], "T").length === 2, "the turn's own reply");
    expect(starts(a)).toEqual(["use wait_gate first"]);
    expect(starts(b)).toEqual([]);
  });

  it("decides an approval on the instance that did not run the turn: the tool runs once, the turn goes on there", async () => {
    const { a, b, cluster } = await pair();
    expect(await holdFirst(cluster, "a", "T")).toBe(true);
    await say(a, "T", "use delete_file report.txt");
    await until(() => a.gateway.decisionRequests.length === 1, "the approval request, sent by the leader");
    const requestId = a.gateway.decisionRequests[0]?.requestId as string;
    expect(await b.session.decide(requestId, { decision: "approve" }, "user-1")).toMatchObject({ ok: true });
    await until(() => a.executed.length + b.executed.length === 1, "the approved tool");
    expect(b.executed).toEqual(["use delete_file report.txt"]);
    expect(await b.session.decide(requestId, { decision: "approve" }, "user-1")).toMatchObject({
      ok: false,
      code: "already_decided",
    });
  });

  it("leaves a thread that waits for a decision alone: no sweep takes it over until it is decided", async () => {
    const { a, b, cluster } = await pair();
    await say(a, "T", "use delete_file report.txt");
    await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
    await until(() => !cluster.holders().has("gw:mock:T"), "the suspended thread let go");
    // Taking a thread over reads its records with unfinishedOf: count who does.
    const takeovers: string[] = [];
    // The instances share one store object (as one database server): patch it once.
    for (const db of new Set([a.db, b.db])) {
      const inbox = db.inbox;
      const read = inbox.unfinishedOf.bind(inbox);
      inbox.unfinishedOf = (gateway, thread) => {
        takeovers.push(thread);
        return read(gateway, thread);
      };
    }
    await new Promise((r) => setTimeout(r, 600)); // six sweeps on each instance
    expect(takeovers).toEqual([]);
    const requestId = a.gateway.decisionRequests[0]?.requestId as string;
    expect(await b.session.decide(requestId, { decision: "approve" }, "user-1")).toMatchObject({ ok: true });
    await until(() => b.executed.length === 1, "the approved tool on b");
    expect(takeovers).toEqual(["T"]);
  });

  it("a decision taken on the other instance holds the thread there: a message meanwhile waits behind the approved tool", async () => {
    const { a, b, cluster } = await pair();
    expect(await holdFirst(cluster, "a", "T")).toBe(true);
    await say(a, "T", "use slow_delete report.txt");
    await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
    await until(() => !cluster.holders().has("gw:mock:T"), "the suspended thread let go");
    const requestId = a.gateway.decisionRequests[0]?.requestId as string;
    expect(await b.session.decide(requestId, { decision: "approve" }, "user-1")).toMatchObject({ ok: true });
    await until(() => b.gates.calls.length === 1, "the approved tool running on b");
    expect(cluster.holders().get("gw:mock:T")).toBe("b");
    await say(a, "T", "after the tool");
    await until(() => b.session.snapshot("mock", "T").queued === 1, "queued on b behind the tool");
    expect(starts(a)).toEqual(["use slow_delete report.txt"]);
    b.gates.openAll();
    await until(() => starts(b).length === 1, "the message runs on b");
    expect(starts(b)).toEqual(["after the tool"]);
    expect(b.executed).toEqual(["use slow_delete report.txt"]);
    await until(() => texts([a, b], "T").length >= 2, "the replies");
    expect(texts([a, b], "T").at(-1)).toContain("after the tool");
  });

  it("steer: a message recorded elsewhere is spliced into the holder's running turn (one turn, one reply)", async () => {
    const { a, b, cluster } = await pair({ policy: "steer" });
    expect(await holdFirst(cluster, "a", "T")).toBe(true);
    await say(a, "T", "use wait_gate first");
    await until(() => a.gates.calls.length === 1, "the turn at its gate on a");
    await say(b, "T", "and this too");
    await until(() => a.session.snapshot("mock", "T").steered === 1, "spliced into the holder's turn");
    expect(a.session.snapshot("mock", "T").queued).toBe(0);
    a.gates.openAll();
    await until(() => texts([a, b], "T").length === 1, "one reply");
    await a.session.idle();
    expect(starts(a)).toEqual(["use wait_gate first"]);
    expect(starts(b)).toEqual([]);
    expect(texts([a, b], "T")[0]).toContain("and this too");
    expect(await a.db.inbox.unfinished()).toEqual([]);
  });

  it("interrupt: a message recorded elsewhere cancels the holder's running turn, then runs", async () => {
    const { a, b, cluster } = await pair({ policy: "interrupt" });
    expect(await holdFirst(cluster, "a", "T")).toBe(true);
    await say(a, "T", "use wait_gate first");
    await until(() => a.gates.calls.length === 1, "the turn at its gate on a");
    await say(b, "T", "stop that");
    await until(() => a.session.snapshot("mock", "T").queued === 1, "queued behind the cancelled turn");
    a.gates.openAll();
    await until(() => texts([a, b], "T").length === 1, "the reply to the interrupting message");
    expect(starts(a)).toEqual(["use wait_gate first", "stop that"]);
    expect(texts([a, b], "T")[0]).toContain("stop that");
  });

  it("a streamed reply run on one instance and sent by the leader: no preview update lands after the draft's finish", async () => {
    // One log for both instances' mocks, so the calls of a (the sender) and b (the turn) are ordered.
    const calls: MockStreamCall[] = [];
    // The final message went out (a finish, or a plain send when the sender found no draft).
    let finalSent = () => calls.some((c) => c.kind === "finish");
    // A slow platform: each update stays in flight until the final message went out (or 4 s, well
    // past the leader's 1 s outbox poll), so the first update, started at the first token, is in
    // flight when the turn ends, and lands after the final message whenever the leader can send
    // it before the turn's instance has closed its preview.
    const slowUpdate = async () => {
      const deadline = Date.now() + 4_000;
      while (!finalSent() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    };
    const { a, b, cluster } = await pair(undefined, {
      gateway: { stream: { log: calls, slowUpdate } },
      tokenDelayMs: 10,
    });
    finalSent = () => a.gateway.sent.length + b.gateway.sent.length > 0;
    expect(cluster.leaderOf("session")).toBe("a");
    // The turn runs on b, not the leader: b holds the thread's lock before the message arrives, so
    // a's sweep cannot take it first.
    expect(await cluster.instance("b").acquireThread("gw:mock:S")).toBe(true);
    await say(b, "S", "hello over there");
    await until(finalSent, "the final message", 15_000);
    await b.session.idle();
    await a.session.idle();
    expect(starts(b)).toEqual(["hello over there"]);
    const memory = await b.db
      .createMemory({ canSummarize: false })
      .load({ userId: "mock", conversationId: "S" });
    const reply = memory.filter((m) => m.role === "assistant").at(-1)?.content;
    expect(reply).toContain("hello over there");
    const finishes = calls.filter((c) => c.kind === "finish");
    expect(finishes.map((c) => c.text)).toEqual([reply]);
    const updates = calls.filter((c) => c.kind === "update");
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.filter((u) => u.seq > (finishes[0]?.seq ?? 0))).toEqual([]);
    expect(new Set(calls.map((c) => c.draft))).toEqual(new Set([updates[0]?.draft]));
    expect(b.gateway.sent).toEqual([]);
    expect(a.gateway.textsTo("S")).toEqual([reply]);
  });
});
