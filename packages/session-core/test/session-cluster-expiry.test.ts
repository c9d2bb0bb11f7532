// An approval request that expires when several instances share one store: the instance that
// expires it runs its thread first (as a decision does), so the rejected turn ends as it would on
// one instance: one reply, its message done, and the next message runs alone.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryCluster } from "../src/testing/index.js";
import { type Rig, tempDir, until, useRig } from "./session-harness.js";

const T = "T";
const TID = `gw:mock:${T}`;
const openRig = useRig();

/** Two instances over one store; the sweep is slowed so only the calls the test makes take threads. */
async function pair() {
  const dir = tempDir();
  const cluster = createMemoryCluster();
  const common = { dir, expiresAfterSeconds: 60, sweepMs: 60_000 };
  const a = await openRig({ ...common, coordination: cluster.instance("a") });
  const b = await openRig({ ...common, coordination: cluster.instance("b"), store: a.db });
  return { a, b, cluster };
}

let sent = 0;
/** A platform message with an id unique across instances (each mock counts its own ids). */
const say = (r: Rig, text: string) => r.gateway.inject({ thread: T, text, id: `m${++sent}` });
const texts = (r: Rig[]) => r.flatMap((x) => x.gateway.textsTo(T));
const starts = (r: Rig[]) => r.flatMap((x) => x.runs.starts.map((s) => s.input));

/** The first message's turn waits for a decision on a thread no instance holds. */
async function waitingAndLetGo(a: Rig, cluster: ReturnType<typeof createMemoryCluster>) {
  await say(a, "use delete_file old.txt");
  await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
  await until(() => !cluster.holders().has(TID), "the waiting thread let go");
  return a.gateway.decisionRequests[0]!;
}

describe("an approval request expiring with several instances", () => {
  it("on a thread no instance holds ends the turn once: one reply, one decided notice, its message done, and the next message runs alone", async () => {
    const { a, b, cluster } = await pair();
    const request = await waitingAndLetGo(a, cluster);
    expect(await a.session.expireApprovals(request.createdAt + 60_000)).toBe(1);
    await until(() => texts([a, b]).length === 1, "the rejected turn's reply");
    await a.session.idle();
    await b.session.idle();
    expect(texts([a, b])).toHaveLength(1);
    expect(texts([a, b])[0]).toContain("delete_file");
    expect([...a.gateway.decided, ...b.gateway.decided]).toMatchObject([
      { requestId: request.requestId, decision: "reject", decidedBy: "session:expired" },
    ]);
    expect(await a.db.inbox.unfinished()).toEqual([]);
    // Let go once the turn ended, as after a decision.
    await until(() => !cluster.holders().has(TID), "the thread let go after the turn");

    await say(b, "are you there");
    await until(() => texts([a, b]).length === 2, "the next message's reply");
    await a.session.idle();
    await b.session.idle();
    expect(starts([a, b])).toEqual(["use delete_file old.txt", "are you there"]);
    expect(texts([a, b])[1]).toContain("are you there");
    expect([...a.executed, ...b.executed]).toEqual([]);
    expect(await a.db.inbox.unfinished()).toEqual([]);
  });

  it("on a thread another instance holds is left to that instance, which expires it on its own schedule, leading or not", async () => {
    const { a, b, cluster } = await pair();
    const request = await waitingAndLetGo(a, cluster);
    // A message behind the waiting turn: b takes the thread and holds it while the message queues.
    await say(b, "tell me the time");
    await until(() => b.session.snapshot("mock", T).queued === 1, "the message queued on b");
    expect(cluster.holders().get(TID)).toBe("b");

    expect(await a.session.expireApprovals(request.createdAt + 60_000)).toBe(0);
    expect(await a.db.interactions.get(request.requestId)).toMatchObject({ status: "open" });
    expect(cluster.holders().get(TID)).toBe("b");

    expect(cluster.leaderOf("session")).toBe("a");
    expect(b.session.scheduler.list().map((t) => t.name)).toContain("session:approval-expiry");
    expect(await b.session.expireApprovals(request.createdAt + 60_000)).toBe(1);
    await until(() => texts([a, b]).length === 2, "the rejected turn's reply, then the queued message's");
    await a.session.idle();
    await b.session.idle();
    expect(starts([a, b])).toEqual(["use delete_file old.txt", "tell me the time"]);
    expect(texts([a, b])[0]).toContain("delete_file");
    expect(texts([a, b])[1]).toContain("tell me the time");
    expect([...a.gateway.decided, ...b.gateway.decided]).toHaveLength(1);
    expect(await a.db.inbox.unfinished()).toEqual([]);
  });

  it("runs every 30 s on the leader, and on an instance that does not lead only while it holds a thread", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout"] });
    const dir = tempDir();
    const cluster = createMemoryCluster();
    const common = { dir, sweepMs: 600_000 };
    const a = await openRig({ ...common, coordination: cluster.instance("a") });
    const b = await openRig({
      ...common,
      coordination: cluster.instance("b"),
      store: a.db,
      threadHoldMs: 600_000,
    });
    expect(cluster.leaderOf("session")).toBe("a");
    // Both share a's store: each call is one instance's expiry run.
    let reads = 0;
    const expired = a.db.interactions.expired.bind(a.db.interactions);
    a.db.interactions.expired = (now) => {
      reads += 1;
      return expired(now);
    };
    await vi.advanceTimersByTimeAsync(30_000);
    expect(reads).toBe(1);

    await say(b, "hello");
    await until(() => texts([a, b]).length === 1, "the reply");
    expect(cluster.holders().get(TID)).toBe("b");
    reads = 0;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(reads).toBe(2);
  });
});

afterEach(() => {
  vi.useRealTimers();
});
