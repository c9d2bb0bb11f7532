// A message whose claim joins a take already in flight (another message of the same thread, recorded
// on the same instance just before) was not announced with that take: its statement had gone before
// the message was committed. When the take finds the thread held elsewhere, the joiner announces
// its own message (ownership.ts #claim: `announced` is the starter's answer only). Found by a
// mutation run of ownership.ts (#45): a joiner answered `announced` left its message to the sweep,
// and one answered `elsewhere` after a take that took the thread announced it to itself.
import { setImmediate } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { ClusterMessage, Coordination } from "../src/index.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { clusterRigs, parked, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

describe("two messages recorded on an instance that does not hold their thread", () => {
  it("the second, joining the first one's take in flight, is announced by itself and run by the holder", async () => {
    const dir = freshDir();
    const cluster = createMemoryCluster();
    const innerB = cluster.instance("b");
    const inFlight = parked();
    const published: ClusterMessage[] = [];
    // b's take announces with it, then stays in flight until the test lets it answer.
    const b: Coordination = {
      ...innerB,
      async acquireOrAnnounce(key, message) {
        if (await innerB.acquireThread(key)) return "acquired";
        await innerB.publish(message);
        await inFlight.reached();
        return "announced";
      },
      publish(message) {
        published.push(message);
        return innerB.publish(message);
      },
    };
    // No sweep in the test's time: announcements are the only way b's messages reach a.
    const common = { dir, sweepMs: 600_000 };
    const ra = await rig({ ...common, coordination: cluster.instance("a") });
    const rb = await rig({ ...common, coordination: b, store: ra.db });
    rigs.push(ra, rb);
    await ra.gateway.inject({ thread: "T", text: "use wait_gate first", id: "m1" });
    await until(() => ra.gates.calls.length === 1, "a's turn at its gate");
    await rb.gateway.inject({ thread: "T", text: "second", id: "m2" });
    await until(() => inFlight.began, "b's take in flight");
    await until(() => ra.session.snapshot("mock", "T").queued === 1, "the second queued on a");
    await rb.gateway.inject({ thread: "T", text: "third", id: "m3" });
    await setImmediate(); // the third's dispatch has joined the take in flight
    inFlight.release();
    await until(() => ra.session.snapshot("mock", "T").queued === 2, "the third queued on a");
    expect(published.filter((m) => m.kind === "thread")).toEqual([
      { kind: "thread", gateway: "mock", thread: "T", held: true, id: expect.any(Number) },
    ]);
    ra.gates.openAll();
    await until(() => ra.gateway.textsTo("T").length === 3, "all three answered");
    expect(rb.runs.starts).toHaveLength(0);
  });

  it("the second, joining the first one's take that took the thread, runs here with it and announces nothing", async () => {
    const dir = freshDir();
    const cluster = createMemoryCluster();
    const inner = cluster.instance("a");
    const inFlight = parked();
    const published: ClusterMessage[] = [];
    const a: Coordination = {
      ...inner,
      async acquireOrAnnounce(key, message) {
        await inFlight.reached();
        if (await inner.acquireThread(key)) return "acquired";
        await inner.publish(message);
        return "announced";
      },
      publish(message) {
        published.push(message);
        return inner.publish(message);
      },
    };
    const r = await rig({ dir, coordination: a, sweepMs: 600_000 });
    rigs.push(r);
    await r.gateway.inject({ thread: "T", text: "first", id: "m1" });
    await until(() => inFlight.began, "the first one's take in flight");
    await r.gateway.inject({ thread: "T", text: "second", id: "m2" });
    await setImmediate(); // the second's dispatch has joined the take in flight
    inFlight.release();
    await until(() => r.gateway.textsTo("T").length === 2, "both answered");
    expect(published.filter((m) => m.kind === "thread")).toEqual([]);
    expect(r.runs.starts).toHaveLength(2);
  });
});
