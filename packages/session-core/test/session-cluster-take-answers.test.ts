// How an instance of several reads its coordination's answer to a take that may announce
// (acquireOrAnnounce, ownership.ts #acquire): `acquired` is a take (the thread is held and runs
// here with one take, nothing published), `not-acquired` is no take (nothing runs until the lock is
// held). Found by a mutation run of ownership.ts (#45): a take answered `acquired` counted as not
// held went on through a publish and a second take unnoticed, and no test answered `not-acquired`.
import { afterEach, describe, expect, it } from "vitest";
import type { ClusterMessage, Coordination } from "../src/index.js";
import { createMemoryCluster, type MemoryCluster } from "../src/testing/index.js";
import { type Rig, removeDir, rig, tempDir, until } from "./session-harness.js";

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) {
    await r.close(50);
    removeDir(r.dir);
  }
});

/** Instance "a" whose takes may announce; `refuseFirst`: its first such take answers not-acquired (a failed statement). */
function announcing(cluster: MemoryCluster, refuseFirst = false) {
  const inner = cluster.instance("a");
  const seen = { published: [] as ClusterMessage[], takes: 0, refused: 0 };
  // Refusing: until the first announcing take has been refused, no other take succeeds either (the
  // sweep must not take the thread before the message's own take).
  const refusing = () => refuseFirst && seen.refused === 0;
  const coordination: Coordination = {
    ...inner,
    acquireThread: async (key) => {
      seen.takes++;
      return refusing() ? false : inner.acquireThread(key);
    },
    async acquireOrAnnounce(key, message) {
      seen.takes++;
      if (refusing()) {
        seen.refused++;
        return "not-acquired";
      }
      if (await inner.acquireThread(key)) return "acquired";
      await inner.publish(message);
      return "announced";
    },
    publish(message) {
      seen.published.push(message);
      return inner.publish(message);
    },
  };
  return { coordination, seen };
}

describe("an instance of several whose coordination announces with its takes", () => {
  it("runs a message whose take answered acquired with that one take, publishing nothing", async () => {
    const cluster = createMemoryCluster();
    const a = announcing(cluster);
    const r = await rig({
      dir: tempDir(),
      coordination: a.coordination,
      sweepMs: 600_000,
      threadHoldMs: 600_000,
    });
    rigs.push(r);
    await r.gateway.inject({ thread: "T", text: "hello", id: "m1" });
    await until(() => r.gateway.textsTo("T").length === 1, "the reply");
    expect(a.seen.takes).toBe(1);
    expect(a.seen.published.filter((m) => m.kind === "thread")).toEqual([]);
    expect(cluster.holders().get("gw:mock:T")).toBe("a");
  });

  it("runs nothing on a take answered not-acquired: the message runs once the lock is taken", async () => {
    const cluster = createMemoryCluster();
    const a = announcing(cluster, true);
    // The sweep takes the thread after the refused take (its message announced as held, to no holder).
    const r = await rig({ dir: tempDir(), coordination: a.coordination, sweepMs: 20, threadHoldMs: 600_000 });
    rigs.push(r);
    await r.gateway.inject({ thread: "T", text: "hello", id: "m1" });
    await until(() => r.gateway.textsTo("T").length === 1, "the reply");
    expect(a.seen.refused).toBe(1);
    expect(a.seen.takes).toBeGreaterThan(1);
    expect(r.runs.starts).toHaveLength(1);
    // It ran holding the lock (kept for the hold now).
    expect(cluster.holders().get("gw:mock:T")).toBe("a");
  });
});
