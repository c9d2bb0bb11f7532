// /cancel and /steer sent to an instance that does not run the thread reach the one that does.
import { defineAgent, RunManager, WindowMemory } from "@agentsvc/agent-core";
import type { ClusterMessage } from "@agentsvc/session-core";
import { createMemoryCluster } from "@agentsvc/session-core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clusterRuns } from "../src/cluster/run-control.js";

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

function instance(
  cluster: ReturnType<typeof createMemoryCluster>,
  id: string,
  options: { linkDownFor?: ClusterMessage["kind"]; warnings?: object[] } = {},
) {
  const agent = defineAgent({ name: "slow", model: { provider: "demo", tokenDelayMs: 50 } });
  const local = new RunManager({ agent, memory: new WindowMemory() });
  const coordination = cluster.instance(id);
  // What a PostgreSQL link does while it reconnects: publishing that kind rejects.
  const publish = coordination.publish.bind(coordination);
  coordination.publish = (m) =>
    m.kind === options.linkDownFor ? Promise.reject(new Error("the link is down")) : publish(m);
  const logger = { warn: (obj: object) => void options.warnings?.push(obj) };
  const runs = clusterRuns(local, coordination, { timeoutMs: 300, logger });
  closers.push(() => runs.close());
  return { local, runs };
}

describe("run control across instances", () => {
  it("cancels a run from another instance, and only its owner can", async () => {
    const cluster = createMemoryCluster();
    const a = instance(cluster, "a");
    const b = instance(cluster, "b");
    const handle = a.runs.start({
      input: "tell me a long story",
      threadId: "t1",
      userId: "ann",
      conversationId: "c",
    });
    expect(await b.runs.cancelAnywhere?.("t1", { userId: "bob" }, "not yours")).toBe(false);
    expect(await b.runs.cancelAnywhere?.("t1", { userId: "ann" }, "stop")).toBe(true);
    expect((await handle.done).status).toBe("cancelled");
  });

  it("steers a run from another instance", async () => {
    const cluster = createMemoryCluster();
    const a = instance(cluster, "a");
    const b = instance(cluster, "b");
    const handle = a.runs.start({
      input: "tell me a long story",
      threadId: "t2",
      userId: "ann",
      conversationId: "c",
    });
    expect(await b.runs.steerAnywhere?.("t2", "and make it short", { userId: "ann" })).toBe(true);
    await handle.done;
    const remembered = await a.local.memory.load({ userId: "ann", conversationId: "c" });
    expect(JSON.stringify(remembered)).toContain("and make it short");
  });

  it("answers false for a thread no instance runs", async () => {
    const cluster = createMemoryCluster();
    instance(cluster, "a");
    const b = instance(cluster, "b");
    expect(await b.runs.cancelAnywhere?.("nobody", { userId: "ann" })).toBe(false);
    expect(await b.runs.steerAnywhere?.("nobody", "hi", { userId: "ann" })).toBe(false);
  });

  it("logs an acknowledgement it cannot send while the link is down, and the process goes on", async () => {
    const cluster = createMemoryCluster();
    const warnings: object[] = [];
    const a = instance(cluster, "a", { linkDownFor: "run-ack", warnings });
    const b = instance(cluster, "b");
    const handle = a.runs.start({
      input: "tell me a long story",
      threadId: "t3",
      userId: "ann",
      conversationId: "c",
    });
    // The run is cancelled where it runs; the asker hears nothing back and answers false.
    expect(await b.runs.cancelAnywhere?.("t3", { userId: "ann" }, "stop")).toBe(false);
    expect((await handle.done).status).toBe("cancelled");
    expect(warnings).toEqual([{ err: "the link is down", kind: "run-ack" }]);
  });
});
