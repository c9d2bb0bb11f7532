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

describe("memory cluster: a take that announces (acquireOrAnnounce, as PostgreSQL's tryLockOrNotify)", () => {
  const msg: ClusterMessage = { kind: "thread", gateway: "mock", thread: "T", held: true, id: 1 };

  it("takes a free thread, and announces nothing", async () => {
    const cluster = createMemoryCluster();
    const heard: ClusterMessage[] = [];
    cluster.instance("b").subscribe((m) => heard.push(m));
    expect(await cluster.instance("a").acquireOrAnnounce?.("gw:mock:T", msg)).toBe("acquired");
    await tick();
    expect(cluster.holders().get("gw:mock:T")).toBe("a");
    expect(heard).toEqual([]);
  });

  it("announces the message to every instance when another holds the thread, through the instance's own publish", async () => {
    const cluster = createMemoryCluster();
    const heard: ClusterMessage[] = [];
    cluster.instance("a").subscribe((m) => heard.push(m));
    await cluster.instance("a").acquireThread("gw:mock:T");
    const inner = cluster.instance("b");
    const published: ClusterMessage[] = [];
    const b = {
      ...inner,
      publish: (m: ClusterMessage) => {
        published.push(m);
        return inner.publish(m);
      },
    };
    expect(await b.acquireOrAnnounce?.("gw:mock:T", msg)).toBe("announced");
    await tick();
    expect(published).toEqual([msg]);
    expect(heard).toEqual([msg]);
    expect(cluster.holders().get("gw:mock:T")).toBe("a");
  });

  it("a dropped instance neither takes nor announces", async () => {
    const cluster = createMemoryCluster();
    const heard: ClusterMessage[] = [];
    cluster.instance("a").subscribe((m) => heard.push(m));
    await cluster.instance("a").acquireThread("gw:mock:T");
    cluster.drop("b");
    expect(await cluster.instance("b").acquireOrAnnounce?.("gw:mock:T", msg)).toBe("not-acquired");
    await tick();
    expect(heard).toEqual([]);
  });
});
