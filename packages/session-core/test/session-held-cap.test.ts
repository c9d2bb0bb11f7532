// The cap on threads one instance of several holds at once (held-cap.ts), on a memory cluster: a
// thread refused for want of room waits with its messages in the inbox and is taken, oldest first,
// as a held thread is let go; threads that come later wait behind it; an idle thread kept for its
// next message makes room at once. PostgreSQL's own lock table: session-held-cap-pg.test.ts.
import { AgentsvcError } from "@agentsvc/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewaySession, GatewayRegistry } from "../src/index.js";
import { createMemoryCluster, type MemoryCluster } from "../src/testing/index.js";
import { type Rig, type RigOptions, removeDir, rig, tempDir, until } from "./session-harness.js";

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) {
    await r.close(50);
    removeDir(r.dir);
  }
});

async function one(options: RigOptions): Promise<{ r: Rig; cluster: MemoryCluster }> {
  const cluster = createMemoryCluster();
  const r = await rig({ dir: tempDir(), coordination: cluster.instance("a"), ...options });
  rigs.push(r);
  return { r, cluster };
}

/** The threads whose locks the cluster counts held now. */
const held = (cluster: MemoryCluster) => [...cluster.holders().keys()];

describe("an instance of several with a cap on the threads it holds", () => {
  it("takes threads waiting for room oldest first as held ones are let go, one at a time under a cap of 1 (AGENTSVC_MAX_HELD_THREADS)", async () => {
    // No sweep in the test's time: the waiting threads are taken as room is made, by nothing else.
    const { r, cluster } = await one({ env: { AGENTSVC_MAX_HELD_THREADS: "1" }, sweepMs: 600_000 });
    await r.gateway.inject({ thread: "A", text: "use wait_gate A", id: "a1" });
    await until(() => r.gates.calls.length === 1, "A's turn at its gate");
    await r.gateway.inject({ thread: "B", text: "use wait_gate B", id: "b1" });
    await r.gateway.inject({ thread: "C", text: "use wait_gate C", id: "c1" });
    await r.gateway.inject({ thread: "B", text: "hello B again", id: "b2" });
    expect(held(cluster)).toEqual(["gw:mock:A"]);
    const queued = (await r.db.inbox.unfinished()).filter((rec) => rec.status === "queued");
    expect(queued.map((rec) => rec.dedupKey)).toEqual(["b1", "c1", "b2"]);
    await r.gates.openNext();
    await until(() => r.gates.calls.length === 2, "the next turn at its gate");
    expect(r.gates.calls[1]).toBe("use wait_gate B");
    expect(held(cluster)).toEqual(["gw:mock:B"]);
    // B keeps its place while its queued message runs: C still waits.
    await r.gates.openNext();
    await until(() => r.gates.calls.length === 3, "C's turn at its gate");
    // B's second reply goes in the sender's next pass (spaced from the one that sent its first).
    await until(() => r.gateway.textsTo("B").length >= 2, "B's second reply sent");
    expect(r.gateway.textsTo("B")).toHaveLength(2);
    expect(r.gateway.textsTo("B")[1]).toContain("hello B again");
    expect(held(cluster)).toEqual(["gw:mock:C"]);
    r.gates.openAll();
    await r.session.idle();
    for (const t of ["A", "C"]) expect(r.gateway.textsTo(t)).toHaveLength(1);
    expect(r.runs.starts).toHaveLength(4);
    expect(await r.db.inbox.unfinished()).toEqual([]);
    // Said once (at most once a minute), naming the cap.
    const warned = r.logs.lines().filter((l) => l.msg?.startsWith("holding the most threads allowed"));
    expect(warned.map((l) => [l.level, l.max])).toEqual([[40, 1]]);
  });

  it("lets an idle thread it keeps for its next message go at once when another thread waits for room", async () => {
    const { r, cluster } = await one({ maxHeldThreads: 1, threadHoldMs: 600_000, sweepMs: 600_000 });
    await r.gateway.inject({ thread: "A", text: "hello A", id: "a1" });
    await until(() => r.gateway.textsTo("A").length === 1, "A's reply");
    await r.session.idle();
    expect(held(cluster)).toEqual(["gw:mock:A"]);
    await r.gateway.inject({ thread: "B", text: "hello B", id: "b1" });
    await until(() => r.gateway.textsTo("B").length === 1, "B's reply");
    await r.session.idle();
    // Kept again now: nothing waits.
    expect(held(cluster)).toEqual(["gw:mock:B"]);
  });

  it("leaves a thread waiting for room out of its sweeps: no lock or holder asked for it", async () => {
    const asked: string[] = [];
    const cluster = createMemoryCluster();
    const inner = cluster.instance("a");
    const coordination = {
      ...inner,
      threadBusy: (key: string) => {
        asked.push(key);
        return inner.threadBusy?.(key) ?? Promise.resolve(false);
      },
      acquireThread: (key: string) => {
        asked.push(key);
        return inner.acquireThread(key);
      },
    };
    const r = await rig({ dir: tempDir(), coordination, maxHeldThreads: 1, sweepMs: 10 });
    rigs.push(r);
    await r.gateway.inject({ thread: "A", text: "use wait_gate A", id: "a1" });
    await until(() => r.gates.calls.length === 1, "A's turn at its gate");
    await r.gateway.inject({ thread: "B", text: "hello B", id: "b1" });
    const periods = () => r.session.scheduler.list().find((t) => t.name === "session:sweep")?.runs ?? 0;
    // B waits once the warning is out; a sweep that listed the inbox before that may still ask for it.
    await until(() => r.logs.lines().some((l) => l.msg?.startsWith("holding the most threads")), "B waits");
    const waited = periods();
    await until(() => periods() >= waited + 2, "the sweep in flight over");
    asked.length = 0;
    const from = periods();
    await until(() => periods() >= from + 5, "five sweep periods");
    expect(asked.filter((key) => key === "gw:mock:B")).toEqual([]);
    r.gates.openAll();
    await until(() => r.gateway.textsTo("B").length === 1, "B's reply");
  });

  it("fails at boot on a cap that is not a whole number of threads of at least 1", () => {
    const build = (env: Record<string, string>, maxHeldThreads?: number) => () =>
      createGatewaySession({
        runs: {} as never,
        store: {} as never,
        registry: new GatewayRegistry(),
        agent: { name: "root" },
        env,
        ...(maxHeldThreads === undefined ? {} : { maxHeldThreads }),
      });
    expect(build({ AGENTSVC_MAX_HELD_THREADS: "0" })).toThrow(AgentsvcError);
    expect(build({ AGENTSVC_MAX_HELD_THREADS: "many" })).toThrow(
      /AGENTSVC_MAX_HELD_THREADS: expected an integer >= 1 \(got "many"\)/,
    );
    expect(build({}, 2.5)).toThrow(/maxHeldThreads: expected an integer >= 1 \(got "2.5"\)/);
    // Unset or empty: the default.
    expect(build({ AGENTSVC_MAX_HELD_THREADS: "" })).not.toThrow();
  });
});
