// A message recorded on an instance that does not hold its thread is announced to the holder with
// the failed take (Coordination.acquireOrAnnounce: on PostgreSQL the NOTIFY goes in the statement of
// the take, pg-cluster's ThreadLocks.tryLockOrNotify), not by a publish of its own after it (#45.3).
import { describe, expect, it } from "vitest";
import type { ClusterMessage, Coordination } from "../src/index.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { clusterRigs, parked, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

/** A memory instance that can announce with a take; what it announced with takes and by publishing. */
function announcing(inner: Coordination) {
  const withTakes: ClusterMessage[] = [];
  const published: ClusterMessage[] = [];
  const coordination: Coordination = {
    ...inner,
    async acquireOrAnnounce(key, message) {
      if (await inner.acquireThread(key)) return "acquired";
      withTakes.push(message);
      await inner.publish(message);
      return "announced";
    },
    publish(message) {
      published.push(message);
      return inner.publish(message);
    },
  };
  return { coordination, withTakes, published };
}

describe("a message recorded where its thread is held elsewhere", () => {
  it("is announced to the holder with the failed take, and published by no statement of its own; the holder answers it", async () => {
    const dir = freshDir();
    const cluster = createMemoryCluster();
    const a = announcing(cluster.instance("a"));
    const b = announcing(cluster.instance("b"));
    const common = { dir, sweepMs: 60_000 };
    const ra = await rig({ ...common, coordination: a.coordination });
    const rb = await rig({ ...common, coordination: b.coordination, store: ra.db });
    rigs.push(ra, rb);
    await ra.gateway.inject({ thread: "T", text: "use wait_gate first", id: "m1" });
    await until(() => ra.gates.calls.length === 1, "a's turn at its gate");
    await rb.gateway.inject({ thread: "T", text: "behind it", id: "m2" });
    await until(() => ra.session.snapshot("mock", "T").queued === 1, "queued on the holder");
    expect(b.withTakes).toEqual([
      { kind: "thread", gateway: "mock", thread: "T", held: true, id: expect.any(Number) },
    ]);
    expect(b.published.filter((m) => m.kind === "thread")).toEqual([]);
    ra.gates.openAll();
    await until(() => ra.gateway.textsTo("T").length === 2, "both answered");
    expect(rb.runs.starts).toHaveLength(0);
    // The holder's own take announced nothing.
    expect(a.withTakes).toEqual([]);
  });
});

describe("an announcement of a record the holder took already", () => {
  it("makes the holder read nothing: an earlier look of its own took the record", async () => {
    const dir = freshDir();
    const cluster = createMemoryCluster();
    const late = parked();
    const inner = cluster.instance("b");
    // b's announcement arrives after the holder's next look (its own message's) took b's record.
    const b: Coordination = {
      ...inner,
      publish: async (m) => {
        if (m.kind === "thread") await late.reached();
        return inner.publish(m);
      },
    };
    const common = { dir, sweepMs: 60_000, threadHoldMs: 60_000 };
    // What a hears, counted once its handler ran (a look it starts is on its way then).
    const heard: ClusterMessage[] = [];
    const innerA = cluster.instance("a");
    const a: Coordination = {
      ...innerA,
      subscribe: (handler) =>
        innerA.subscribe((m) => {
          handler(m);
          heard.push(m);
        }),
    };
    const ra = await rig({ ...common, coordination: a });
    const rb = await rig({ ...common, coordination: b, store: ra.db });
    rigs.push(ra, rb);
    const looks: string[] = [];
    const queued = ra.db.inbox.queued.bind(ra.db.inbox);
    ra.db.inbox.queued = (gateway, thread) => {
      looks.push(thread);
      return queued(gateway, thread);
    };
    await ra.gateway.inject({ thread: "T", text: "use wait_gate first", id: "m1" });
    await until(() => ra.gates.calls.length === 1, "a's turn at its gate");
    await rb.gateway.inject({ thread: "T", text: "from b", id: "m2" });
    await until(() => late.began, "b's announcement on its way");
    await ra.gateway.inject({ thread: "T", text: "from a", id: "m3" });
    await until(() => ra.session.snapshot("mock", "T").queued === 2, "both queued on the holder");
    const before = looks.length;
    late.release();
    await until(() => heard.some((m) => m.kind === "thread"), "the announcement heard");
    ra.gates.openAll();
    await until(() => ra.gateway.textsTo("T").length === 3, "all three answered");
    await ra.session.idle();
    // Kept for the hold (60 s), so nothing after the turns reads either.
    expect(looks.length - before).toBe(0);
    expect(
      ra.gateway
        .textsTo("T")
        .slice(1)
        .map((t) => t.includes("from b")),
    ).toEqual([true, false]);
  });
});
