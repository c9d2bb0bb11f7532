// A message recorded on an instance of several that has no room for its thread (maxHeldThreads) is
// announced as free, not as held: any instance with room may take it (dispatch.ts). Announced as
// held, only a holder would look, and nobody holds it: it would wait for a sweep. Found by a
// mutation run of dispatch.ts (#45): no test told the two announcements apart.
import { describe, expect, it } from "vitest";
import type { ClusterMessage, Coordination } from "../src/index.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { clusterRigs, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

describe("two instances over one store, the recorder with room for one thread", () => {
  it("a message for a thread the recorder has no room for is announced to all and run by the instance with room, with no sweep", async () => {
    const dir = freshDir();
    const cluster = createMemoryCluster();
    const published: ClusterMessage[] = [];
    const counted = (id: string): Coordination => {
      const inner = cluster.instance(id);
      return {
        ...inner,
        publish: (m) => {
          published.push(m);
          return inner.publish(m);
        },
      };
    };
    // No sweep in the test's time: the announcement is the only way B's message reaches b.
    const common = { dir, sweepMs: 600_000 };
    const a = await rig({ ...common, coordination: counted("a"), maxHeldThreads: 1 });
    const b = await rig({ ...common, coordination: counted("b"), store: a.db });
    rigs.push(a, b);
    await a.gateway.inject({ thread: "A", text: "use wait_gate A", id: "a1" });
    await until(() => a.gates.calls.length === 1, "A's turn at its gate on a");
    await a.gateway.inject({ thread: "B", text: "hello B", id: "b1" });
    await until(() => b.runs.starts.length === 1, "B's turn on b");
    expect(published.filter((m) => m.kind === "thread" && m.thread === "B")).toEqual([
      { kind: "thread", gateway: "mock", thread: "B", id: expect.any(Number) },
    ]);
    expect(cluster.holders().get("gw:mock:A")).toBe("a");
    expect(a.runs.starts).toHaveLength(1);
    a.gates.openAll();
  });
});
