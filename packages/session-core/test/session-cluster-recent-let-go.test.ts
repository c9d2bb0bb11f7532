// An announcement of a message recorded while its thread's holder was letting the thread go (the
// recorder's statement saw it held; the holder's last look read before the record was committed):
// the instance that let the thread go a moment ago looks again, instead of leaving the message to the
// sweep a period or more later (#45.3, recent-let-gos.ts).
import { describe, expect, it } from "vitest";
import type { Coordination } from "../src/index.js";
import { RECENT_LET_GO_MS, RecentLetGos } from "../src/recent-let-gos.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { clusterRigs, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

describe("a message announced as its holder lets the thread go", () => {
  it("is taken and answered by the instance that let the thread go, not left to the sweep", async () => {
    const dir = freshDir();
    const cluster = createMemoryCluster();
    const b = cluster.instance("b");
    // The message recorded meanwhile: its announcement (held) reaches a as a gives the lock back.
    let recorded: number | undefined;
    const inner = cluster.instance("a");
    const a: Coordination = {
      ...inner,
      async releaseThread(key) {
        await inner.releaseThread(key);
        if (recorded === undefined) return;
        const id = recorded;
        recorded = undefined;
        await b.publish({ kind: "thread", gateway: "mock", thread: "T", held: true, id });
      },
    };
    // No hold: a lets the thread go as its turn ends; the sweep is a minute away.
    const common = { dir, sweepMs: 60_000, threadHoldMs: 0 };
    const ra = await rig({ ...common, coordination: a });
    const rb = await rig({ ...common, coordination: b, store: ra.db });
    rigs.push(ra, rb);
    await ra.gateway.inject({ thread: "T", text: "use wait_gate first", id: "m1" });
    await until(() => ra.gates.calls.length === 1, "a's turn at its gate");
    const second = await ra.db.inbox.accept({
      gateway: "mock",
      dedupKey: "m2",
      thread: "T",
      text: "recorded as it was let go",
      origin: { gateway: "mock", thread: "T", meta: {} },
    });
    // a's last look before the let-go would find it: committed after that look, as in the race.
    const queued = ra.db.inbox.queued.bind(ra.db.inbox);
    let hide = true;
    ra.db.inbox.queued = async (gateway, thread) => {
      const rows = await queued(gateway, thread);
      return hide ? rows.filter((r) => r.text !== "recorded as it was let go") : rows;
    };
    recorded = (second as { id: number }).id;
    ra.gates.openAll();
    await until(() => recorded === undefined, "the announcement sent as the lock went back");
    hide = false;
    await until(() => ra.gateway.textsTo("T").length === 2, "both answered");
    expect(rb.runs.starts).toHaveLength(0);
  });
});

describe("threads let go lately", () => {
  it("are remembered for RECENT_LET_GO_MS after their let-go, and forgotten after", () => {
    const recent = new RecentLetGos();
    recent.add("t1", 1_000);
    expect(recent.has("t1", 1_000 + RECENT_LET_GO_MS)).toBe(true);
    expect(recent.has("t1", 1_001 + RECENT_LET_GO_MS)).toBe(false);
    expect(recent.has("t2", 1_000)).toBe(false);
    // A later let-go of another thread drops the ones past the window.
    recent.add("t2", 2_000 + RECENT_LET_GO_MS);
    expect(recent.has("t1", 1_000)).toBe(false);
    expect(recent.has("t2", 2_000 + RECENT_LET_GO_MS)).toBe(true);
  });
});
