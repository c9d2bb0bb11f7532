// What an instance of several does with the threads it holds when it loses them (its connection
// drops or a fence refuses a commit), how it sweeps for work nobody runs, and with optional parts missing.
import { describe, expect, it } from "vitest";
import type { Coordination } from "../src/index.js";
import { createMemoryCluster, createMockGateway, type MemoryCluster } from "../src/testing/index.js";
import { crash, recordedNotRun } from "./recovery-crashes.js";
import { countingLocks, type RigOptions, tempDir, until, useRig } from "./session-harness.js";

const T = "T";
const TID = `gw:mock:${T}`;
const openRig = useRig();

/** Instance a over `coordination` and instance b over `other`, both of `cluster`, over a's store (as one database server). */
async function pair(
  cluster: MemoryCluster,
  coordination: Coordination = cluster.instance("a"),
  other: Coordination = cluster.instance("b"),
) {
  const a = await openRig({ coordination, sweepMs: 60_000 });
  const b = await openRig({ dir: a.dir, coordination: other, store: a.db, sweepMs: 60_000 });
  return { a, b };
}

/** A run logger that keeps what the run manager says (cancels are logged there). */
function runLog() {
  const lines: { msg: string | undefined; threadId?: unknown; reason?: unknown }[] = [];
  const keep = (obj: object, msg?: string) => lines.push({ ...obj, msg });
  return { lines, logger: { info: keep, warn: keep, error: keep } };
}

/** A run manager without its optional `release`. */
const withoutRelease: Partial<RigOptions> = {
  adaptRuns: (runs) => Object.assign(runs, { release: undefined }),
};

/** Instance a of a new cluster, with what its run manager logs. */
async function loggedInstance(options: Partial<RigOptions> = {}) {
  const cluster = createMemoryCluster();
  const runs = runLog();
  const a = await openRig({
    coordination: cluster.instance("a"),
    sweepMs: 60_000,
    runLogger: runs.logger,
    ...options,
  });
  return { cluster, runs, a };
}

describe("an instance of several that loses its threads", () => {
  it("cancels the turn running on a dropped connection, names only the threads it ran, and ends the turn uncommitted", async () => {
    const { cluster, runs, a } = await loggedInstance();
    await a.gateway.inject({ thread: T, text: "use wait_gate first" });
    await until(() => a.gates.calls.length === 1, "the turn at its gate");
    // A lock this connection holds for nothing the session knows of (no state, not claimed here).
    expect(await cluster.instance("a").acquireThread("gw:mock:other")).toBe(true);
    cluster.drop("a");
    expect(runs.lines.filter((l) => l.msg === "run cancelled")).toEqual([
      { msg: "run cancelled", threadId: TID, reason: "this instance lost the thread's lock" },
    ]);
    const lost = a.logs.lines().filter((l) => String(l.msg).startsWith("lost the lock"));
    expect(lost.map((l) => [l.level, l.threadId])).toEqual([[40, TID]]);
    expect(lost[0]?.msg).toBe("lost the lock of a thread; another instance may take it over");
    // The turn winds down at its next checkpoint: nothing recorded, nothing sent, nothing kept here.
    a.gates.openAll();
    await until(() => !a.session.snapshot("mock", T).running, "the lost turn forgotten");
    await a.session.idle();
    expect(a.gateway.textsTo(T)).toEqual([]);
    expect((await a.db.inbox.unfinished()).map((r) => r.status)).toEqual(["running"]);
    expect(a.logs.lines().filter((l) => l.level >= 50)).toEqual([]);
  });

  it("cut off without noticing, has its commit refused by the fence: says it lost the thread and why the turn was not saved, records and sends nothing", async () => {
    const { cluster, runs, a } = await loggedInstance();
    await a.gateway.inject({ thread: T, text: "use wait_gate first" });
    await until(() => a.gates.calls.length === 1, "the turn at its gate");
    cluster.cut("a");
    a.gates.openAll();
    await until(() => !a.session.snapshot("mock", T).running, "the refused turn forgotten");
    await a.session.idle();
    expect(runs.lines.filter((l) => l.msg === "could not persist the turn")).toEqual([
      expect.objectContaining({
        threadId: TID,
        err: `thread ${TID}: not committed, this instance no longer holds it`,
      }),
    ]);
    const warned = a.logs.lines().filter((l) => l.level === 40);
    expect(warned.map((l) => [l.msg, l.threadId])).toEqual([
      ["lost the lock of a thread; another instance may take it over", TID],
    ]);
    expect(a.logs.lines().filter((l) => l.level >= 50)).toEqual([]);
    expect(a.gateway.textsTo(T)).toEqual([]);
    expect((await a.db.inbox.unfinished()).map((r) => r.status)).toEqual(["running"]);
  });

  it.each([
    ["", {}],
    [" (a run manager without release)", withoutRelease],
  ])(
    "forgets a held thread whose turn waits for a decision when its connection drops: its queue goes with it%s",
    async (_, options) => {
      const { cluster, runs, a } = await loggedInstance(options);
      await a.gateway.inject({ thread: T, text: "use delete_file report.txt" });
      await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
      // A message behind the waiting turn keeps the thread held here.
      await a.gateway.inject({ thread: T, text: "after the decision" });
      await until(() => a.session.snapshot("mock", T).queued === 1, "queued behind the waiting turn");
      expect(cluster.holders().get(TID)).toBe("a");
      cluster.drop("a");
      expect(a.session.snapshot("mock", T)).toEqual({ running: false, queued: 0, steered: 0 });
      // The waiting run is left for whichever instance takes the thread: not cancelled here.
      expect(runs.lines.filter((l) => String(l.msg).includes("cancelled"))).toEqual([]);
    },
  );

  it("announces a message for a thread whose lost turn still winds down instead of taking the thread back, and leaves its lock free", async () => {
    const cluster = createMemoryCluster();
    const inner = cluster.instance("a");
    // A connection that stays up but is told one lock went (as when a fence found it gone).
    const told: ((keys: string[]) => void)[] = [];
    const announced: string[] = [];
    const coordination: Coordination = {
      ...inner,
      onThreadsLost: (handler) => {
        told.push(handler);
        return inner.onThreadsLost(handler);
      },
      publish: async (m) => {
        if (m.kind === "thread") announced.push(m.thread);
        await inner.publish(m);
      },
    };
    const a = await openRig({ coordination, sweepMs: 60_000 });
    await a.gateway.inject({ thread: T, text: "use wait_gate first" });
    await until(() => a.gates.calls.length === 1, "the turn at its gate");
    await inner.releaseThread(TID);
    for (const handler of told) handler([TID]);
    await a.gateway.inject({ thread: T, text: "second" });
    await until(() => announced.length > 0, "the message announced");
    expect(a.session.snapshot("mock", T)).toMatchObject({ phase: "running", queued: 0 });
    a.gates.openAll();
    await until(() => !a.session.snapshot("mock", T).running, "the lost turn forgotten");
    await a.session.idle();
    expect(cluster.holders().has(TID)).toBe(false);
    expect(a.runs.starts.map((s) => s.input)).toEqual(["use wait_gate first"]);
  });
});

describe("an instance of several missing an optional part", () => {
  /** The optional part left out, given the instance's coordination. */
  const without: [string, (coordination: Coordination) => Partial<RigOptions>][] = [
    [
      "a coordination without fence",
      (coordination) => {
        const { fence: _none, ...unfenced } = coordination;
        return { coordination: unfenced };
      },
    ],
    ["a run manager without release", (coordination) => ({ coordination, ...withoutRelease })],
  ];

  it.each(without)(
    "with %s commits its turns: one reply, the record done, the thread let go",
    async (_, parts) => {
      const cluster = createMemoryCluster();
      const a = await openRig({ ...parts(cluster.instance("a")), sweepMs: 60_000 });
      await a.gateway.inject({ thread: T, text: "hello" });
      await until(() => a.gateway.textsTo(T).length === 1, "the reply");
      await a.session.idle();
      expect(a.gateway.textsTo(T)[0]).toContain("hello");
      expect(await a.db.inbox.unfinished()).toEqual([]);
      expect(a.logs.lines().filter((l) => l.level >= 50)).toEqual([]);
      await until(() => !cluster.holders().has(TID), "the thread let go");
      // Operators follow a thread from instance to instance by these lines.
      const moves = a.logs
        .lines()
        .filter((l) => l.level === 20 && l.threadId === TID && /thread/.test(String(l.msg)));
      expect(moves.map((l) => l.msg)).toEqual(["took a thread", "let a thread go"]);
    },
  );
});

describe("an instance of several and a thread another instance holds", () => {
  it("answers a decision for it busy after retrying 20 times, while the holder can decide it", async () => {
    const cluster = createMemoryCluster();
    const inner = cluster.instance("b");
    const tries: string[] = [];
    // b counts its tries at the lock.
    const counted = countingLocks(inner, tries);
    const { a, b } = await pair(cluster, cluster.instance("a"), counted);
    await a.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
    // A message behind the waiting turn keeps the thread held by a.
    await a.gateway.inject({ thread: T, text: "after the decision" });
    await until(() => a.session.snapshot("mock", T).queued === 1, "queued behind the waiting turn");
    const requestId = a.gateway.decisionRequests[0]?.requestId as string;
    expect(await b.session.decide(requestId, { decision: "approve" }, "user-1")).toMatchObject({
      ok: false,
      code: "busy",
    });
    expect(tries.filter((key) => key === TID)).toHaveLength(20);
    expect(b.executed).toEqual([]);
    expect(await a.session.decide(requestId, { decision: "approve" }, "user-1")).toMatchObject({ ok: true });
    await until(() => a.runs.starts.length === 2, "the queued message after the decision");
    expect(a.executed).toEqual(["use delete_file report.txt"]);
  });
});

describe("an instance of several letting a thread go", () => {
  it("runs the thread's next message after another instance decided its waiting turn and let it go: nothing of the wait is kept", async () => {
    const cluster = createMemoryCluster();
    const { a, b } = await pair(cluster);
    await a.gateway.inject({ thread: T, text: "use delete_file report.txt" });
    await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
    await until(() => !cluster.holders().has(TID), "the waiting thread let go");
    const requestId = a.gateway.decisionRequests[0]?.requestId as string;
    expect(await b.session.decide(requestId, { decision: "approve" }, "user-1")).toMatchObject({ ok: true });
    await until(() => b.executed.length === 1, "the approved tool on b");
    await b.session.idle();
    await until(() => !cluster.holders().has(TID), "the thread let go by b");
    await a.gateway.inject({ thread: T, text: "next on a" });
    await until(() => a.runs.starts.length === 2, "the next message run on a");
    expect(a.runs.starts.map((s) => s.input)).toEqual(["use delete_file report.txt", "next on a"]);
  });

  it("takes the thread again only once the lock is given back: a message meanwhile runs under a lock it holds", async () => {
    const cluster = createMemoryCluster();
    const inner = cluster.instance("a");
    // Locks given back slowly (a database round trip): not before the test lets them go.
    let giveBack = () => {};
    const given = new Promise<void>((r) => {
      giveBack = r;
    });
    let releasing = false;
    const slow: Coordination = {
      ...inner,
      releaseThread: async (key) => {
        releasing = true;
        await given;
        await inner.releaseThread(key);
      },
    };
    const a = await openRig({ coordination: slow, sweepMs: 60_000 });
    await a.gateway.inject({ thread: T, text: "first" });
    await until(() => releasing, "the lock being given back after the first turn");
    await a.gateway.inject({ thread: T, text: "use wait_gate second" });
    // Its claim runs in microtasks up to the lock (a memory cluster answers at once): let it get there.
    await new Promise((r) => setImmediate(r));
    giveBack();
    await until(() => a.gates.calls.length === 1, "the second turn at its gate");
    expect(cluster.holders().get(TID)).toBe("a");
    a.gates.openAll();
    await until(() => a.gateway.textsTo(T).length === 2, "both replies");
  });
});

describe("an instance of several looking for work nobody runs", () => {
  it("leaves a thread of a gateway it does not run to an instance that runs that gateway", async () => {
    const dir = tempDir();
    await recordedNotRun(dir, T, ["for the other gateway"], "other");
    const cluster = createMemoryCluster();
    // start() awaits the first sweep.
    const a = await openRig({ dir, coordination: cluster.instance("a"), sweepMs: 60_000 });
    expect(cluster.holders().size).toBe(0);
    expect(a.runs.starts).toEqual([]);
    const other = createMockGateway({ name: "other" });
    const b = await openRig({
      dir,
      coordination: cluster.instance("b"),
      store: a.db,
      sweepMs: 60_000,
      extraGateways: [other],
    });
    await until(() => b.runs.starts.length === 1, "the message run by b");
    expect(b.runs.starts.map((s) => s.input)).toEqual(["for the other gateway"]);
    expect(a.runs.starts).toEqual([]);
  });

  it("at boot takes a thread whose turn waits for a decision when a message waits behind it", async () => {
    const dir = tempDir();
    const first = await openRig({ dir });
    await first.gateway.inject({ thread: T, text: "use delete_file keep.txt" });
    await until(() => first.gateway.decisionRequests.length === 1, "the approval request");
    await first.gateway.inject({ thread: T, text: "after the decision" });
    await until(() => first.session.snapshot("mock", T).queued === 1, "queued behind the request");
    await crash(first);
    const cluster = createMemoryCluster();
    // start() awaits the first sweep.
    const a = await openRig({ dir, coordination: cluster.instance("a"), sweepMs: 60_000 });
    expect(cluster.holders().get(TID)).toBe("a");
    expect(a.session.snapshot("mock", T)).toMatchObject({ phase: "suspended", queued: 1 });
    // As leader a asks the request again; its decision runs the tool once, then the message.
    await until(() => a.gateway.decisionRequests.length === 1, "the request asked again");
    const requestId = a.gateway.decisionRequests[0]?.requestId as string;
    expect(await a.gateway.decide(requestId, "approve")).toMatchObject({ ok: true });
    await until(() => a.runs.starts.length === 1, "the message after the decision");
    await a.session.idle();
    expect(a.executed).toEqual(["use delete_file keep.txt"]);
    expect(a.runs.starts.map((s) => s.input)).toEqual(["after the decision"]);
  });

  it("runs a message recorded elsewhere whose announcement it missed once its own turn ends, holding the thread", async () => {
    const cluster = createMemoryCluster();
    const inner = cluster.instance("a");
    // a misses every announcement of a thread (as when a notification is lost).
    const deaf: Coordination = {
      ...inner,
      subscribe: (handler) => inner.subscribe((m) => m.kind !== "thread" && handler(m)),
    };
    const { a, b } = await pair(cluster, deaf);
    await a.gateway.inject({ thread: T, text: "use wait_gate first" });
    await until(() => a.gates.calls.length === 1, "the turn at its gate");
    await b.gateway.inject({ thread: T, text: "recorded on b", id: "on-b" });
    a.gates.openAll();
    await until(() => a.gateway.textsTo(T).length === 2, "both replies");
    await a.session.idle();
    expect(a.runs.starts.map((s) => s.input)).toEqual(["use wait_gate first", "recorded on b"]);
    expect(b.runs.starts).toEqual([]);
    expect(await a.db.inbox.unfinished()).toEqual([]);
    expect(a.logs.lines().filter((l) => l.level >= 50)).toEqual([]);
  });
});
