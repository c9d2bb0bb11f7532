// What an instance of several (sharing one store) takes on from a process that died: at boot the
// leader's pass takes no gateway thread but continues runs elsewhere and asks open requests again;
// a thread's work is taken by whoever claims the thread, once, and a failed take lets it go.
import { describe, expect, it } from "vitest";
import { createMemoryCluster } from "../src/testing/index.js";
import { crash, diedWhileApprovedRunElsewhereRan, recordedNotRun } from "./recovery-crashes.js";
import { Gates, tempDir, until, useRig } from "./session-harness.js";

const T = "T";
const openRig = useRig();

describe("an instance of several", () => {
  it("at boot, as leader continues an approved run that is not a gateway turn, once", async () => {
    const dir = tempDir();
    const threadId = await diedWhileApprovedRunElsewhereRan(dir);
    const gates = new Gates();
    gates.openAll();
    const a = await openRig({ dir, gates, coordination: createMemoryCluster().instance("a") });
    const ended = () => a.logs.lines().filter((l) => l.msg === "continued run ended");
    await until(() => ended().length > 0, "the continued run's end logged");
    await a.session.idle();
    expect(ended()).toEqual([expect.objectContaining({ threadId, status: "completed" })]);
    expect(await a.db.runStore.get(threadId)).toBeUndefined();
    expect(a.executed).toEqual([]);
  });

  it("at boot, as leader asks an open request again without taking its thread; the decision then runs the tool once", async () => {
    const dir = tempDir();
    const first = await openRig({ dir });
    await first.gateway.inject({ thread: T, text: "use delete_file keep.txt" });
    await until(() => first.gateway.decisionRequests.length === 1, "the approval request");
    const requestId = first.gateway.decisionRequests[0]?.requestId ?? "";
    await crash(first);

    const cluster = createMemoryCluster();
    const a = await openRig({ dir, coordination: cluster.instance("a"), sweepMs: 60_000 });
    await until(() => a.gateway.decisionRequests.length === 1, "the request asked again");
    expect(a.gateway.decisionRequests[0]?.requestId).toBe(requestId);
    // Nobody holds the waiting thread, and the leader keeps nothing of it until it takes it.
    expect(cluster.holders().has(`gw:mock:${T}`)).toBe(false);
    expect(a.session.snapshot("mock", T)).toEqual({ running: false, queued: 0, steered: 0 });
    expect(await a.gateway.decide(requestId, "approve")).toMatchObject({ ok: true });
    await until(() => a.gateway.textsTo(T).length === 1, "the turn's reply");
    await a.session.idle();
    expect(a.executed).toEqual(["use delete_file keep.txt"]);
  });

  it("at boot, runs each message a dead process left on a thread once, in order", async () => {
    const dir = tempDir();
    await recordedNotRun(dir, T, ["first", "second", "third"]);
    const a = await openRig({ dir, coordination: createMemoryCluster().instance("a") });
    await until(() => a.gateway.textsTo(T).length >= 3, "three replies");
    await a.session.idle();
    expect(a.runs.starts.map((s) => s.input)).toEqual(["first", "second", "third"]);
    expect(a.gateway.textsTo(T)).toHaveLength(3);
    expect(await a.db.inbox.unfinished()).toEqual([]);
  });

  it("that cannot read a thread's records while taking it lets the thread go, logs it, and runs the message on the next claim", async () => {
    const dir = tempDir();
    const cluster = createMemoryCluster();
    const a = await openRig({ dir, coordination: cluster.instance("a"), sweepMs: 60_000 });
    // The first read of the thread's records while taking it over fails (a dropped query).
    const read = a.db.inbox.unfinishedOf.bind(a.db.inbox);
    a.db.inbox.unfinishedOf = async () => {
      a.db.inbox.unfinishedOf = read;
      throw new Error("the records could not be read");
    };
    await a.gateway.inject({ thread: T, text: "hello after a failed take" });
    await until(() => a.gateway.textsTo(T).length === 1, "the reply");
    await a.session.idle();
    expect(a.runs.starts.map((s) => s.input)).toEqual(["hello after a failed take"]);
    const errors = a.logs.lines().filter((l) => l.level >= 50);
    expect(errors).toEqual([
      expect.objectContaining({
        msg: "could not take over a thread; letting it go",
        threadId: `gw:mock:${T}`,
      }),
    ]);
    await until(() => !cluster.holders().has(`gw:mock:${T}`), "the thread let go after its turn");
  });
});
