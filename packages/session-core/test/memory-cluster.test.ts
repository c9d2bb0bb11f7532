// The in-process cluster's cut: an instance whose connection is gone unnoticed. pg-cluster's bus
// LISTENs on the instance's link, so such an instance hears nothing and tells nobody anything; the
// tests that use it (a holder's commit refused by the fence) rely on that, or its sender, woken by
// another instance's announcement, sends that instance's reply a second time.
import { describe, expect, it } from "vitest";
import type { ClusterMessage } from "../src/coordination.js";
import { createMemoryCluster } from "../src/testing/index.js";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("memory cluster: cut", () => {
  it("a cut instance hears no message and its own reach nobody", async () => {
    const cluster = createMemoryCluster();
    const a = cluster.instance("a");
    const b = cluster.instance("b");
    const heardByA: ClusterMessage[] = [];
    const heardByB: ClusterMessage[] = [];
    a.subscribe((m) => heardByA.push(m));
    b.subscribe((m) => heardByB.push(m));
    cluster.cut("a");
    await b.publish({ kind: "outbox" });
    await a.publish({ kind: "outbox-help" });
    await tick();
    expect(heardByA).toEqual([]);
    expect(heardByB).toEqual([{ kind: "outbox" }]);
  });

  it("a cut instance is granted no role; the next in line leads what it led", async () => {
    const cluster = createMemoryCluster();
    const led: string[] = [];
    const lead = (id: string, role: string) =>
      cluster.instance(id).lead(role, { onLead: () => void led.push(`${id} ${role}`), onLose: () => {} });
    lead("a", "session");
    lead("b", "session");
    cluster.cut("a");
    lead("a", "outbox:1");
    lead("b", "outbox:2");
    expect(led).toEqual(["a session", "b session", "b outbox:2"]);
    expect(cluster.leaderOf("outbox:1")).toBeUndefined();
  });
});
