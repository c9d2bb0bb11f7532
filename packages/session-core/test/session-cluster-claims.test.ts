// How an instance takes a thread: once per thread however many messages ask for it meanwhile, each
// message of the store once, and never when it runs alone (one instance holds no locks).
import { describe, expect, it } from "vitest";
import { type Coordination, localCoordination } from "../src/index.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { countingLocks, parked, type Rig, until, useRig } from "./session-harness.js";

const T = "T";
const TID = `gw:mock:${T}`;
const openRig = useRig();

/** The debug lines operators follow a thread by from instance to instance. */
function moves(r: Rig): unknown[] {
  return r.logs
    .lines()
    .filter((l) => l.level === 20 && /a thread/.test(String(l.msg)))
    .map((l) => l.msg);
}

describe("an instance of several taking a thread", () => {
  it("takes it once for two messages arriving while its lock is being asked for: one lock asked, one take, both answered in order", async () => {
    const cluster = createMemoryCluster();
    const asked: string[] = [];
    // The database answers the lock only when the test lets it.
    const answer = parked();
    const inner = countingLocks(cluster.instance("a"), asked);
    const slow: Coordination = {
      ...inner,
      acquireThread: async (key) => {
        const took = inner.acquireThread(key);
        await answer.reached();
        return took;
      },
    };
    const a = await openRig({ coordination: slow, sweepMs: 60_000 });
    await a.gateway.inject({ thread: T, text: "first" });
    await until(() => asked.length === 1, "the lock asked for");
    await a.gateway.inject({ thread: T, text: "second" });
    // The second message's claim runs in microtasks (recorded, then claimed): let it get there.
    await new Promise((r) => setImmediate(r));
    answer.release();
    await until(() => a.gateway.textsTo(T).length === 2, "both replies");
    await a.session.idle();
    expect(asked).toEqual([TID]);
    expect(a.runs.starts.map((s) => s.input)).toEqual(["first", "second"]);
    // Let go once it has been idle for the session's hold (threadHoldMs), not at its last turn's end.
    await until(() => moves(a).length === 2, "the thread let go");
    expect(moves(a)).toEqual(["took a thread", "let a thread go"]);
  });

  it("runs each message queued behind a running turn once, whatever number of messages looked at the store meanwhile", async () => {
    const a = await openRig({ coordination: createMemoryCluster().instance("a"), sweepMs: 60_000 });
    await a.gateway.inject({ thread: T, text: "use wait_gate first" });
    await until(() => a.gates.calls.length === 1, "the turn at its gate");
    await a.gateway.inject({ thread: T, text: "second" });
    await until(() => a.session.snapshot("mock", T).queued === 1, "the second queued");
    // Its look at the store finds the second message (still queued) again: not taken twice.
    await a.gateway.inject({ thread: T, text: "third" });
    await until(async () => (await a.db.inbox.queued("mock", T)).length === 2, "the third recorded");
    await until(() => a.session.snapshot("mock", T).queued >= 2, "the third queued");
    expect(a.session.snapshot("mock", T).queued).toBe(2);
    a.gates.openAll();
    await until(() => a.gateway.textsTo(T).length === 3, "three replies");
    await a.session.idle();
    expect(a.runs.starts.map((s) => s.input)).toEqual(["use wait_gate first", "second", "third"]);
  });
});

describe("one instance", () => {
  it("asks its coordination for no lock and logs no take of a thread when it answers messages", async () => {
    const asked: string[] = [];
    const a = await openRig({ coordination: countingLocks(localCoordination, asked) });
    await a.gateway.inject({ thread: T, text: "hello" });
    await until(() => a.gateway.textsTo(T).length === 1, "the reply");
    await a.session.idle();
    expect(asked).toEqual([]);
    expect(moves(a)).toEqual([]);
  });
});
