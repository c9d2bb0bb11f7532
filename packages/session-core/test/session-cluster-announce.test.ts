// A message recorded on an instance that does not hold its thread is announced to the holder with
// the failed take (Coordination.acquireOrAnnounce: on PostgreSQL the NOTIFY goes in the statement of
// the take, pg-cluster's ThreadLocks.tryLockOrNotify), not by a publish of its own after it (#45.3).
import { afterEach, describe, expect, it } from "vitest";
import type { ClusterMessage, Coordination } from "../src/index.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { type Rig, removeDir, rig, tempDir, until } from "./session-harness.js";

const rigs: Rig[] = [];
let dir: string | undefined;

afterEach(async () => {
  for (const r of rigs.splice(0).reverse()) await r.close(50);
  if (dir) removeDir(dir);
  dir = undefined;
});

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
    dir = tempDir();
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
    expect(b.withTakes).toEqual([{ kind: "thread", gateway: "mock", thread: "T", held: true }]);
    expect(b.published.filter((m) => m.kind === "thread")).toEqual([]);
    ra.gates.openAll();
    await until(() => ra.gateway.textsTo("T").length === 2, "both answered");
    expect(rb.runs.starts).toHaveLength(0);
    // The holder's own take announced nothing.
    expect(a.withTakes).toEqual([]);
  });
});
