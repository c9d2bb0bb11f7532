// The session tells its coordination which held announcements it looks at (Coordination.subscribe's
// wantsHeld), so the server's drops the others before parsing them (#45.3): those of threads this
// instance holds, or let go a moment ago; none of a thread it neither holds nor let go lately.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Coordination } from "../src/index.js";
import { RECENT_LET_GO_MS } from "../src/recent-let-gos.js";
import { createMemoryCluster } from "../src/testing/index.js";
import { clusterRigs, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();
afterEach(() => vi.useRealTimers());

describe("the held announcements a session wants", () => {
  it("are those of threads it holds or let go lately, asked of the session as each arrives", async () => {
    const inner = createMemoryCluster().instance("a");
    let wantsHeld: ((key: string) => boolean) | undefined;
    const released: string[] = [];
    const coordination: Coordination = {
      ...inner,
      async releaseThread(key) {
        await inner.releaseThread(key);
        released.push(key);
      },
      subscribe(handler, options) {
        wantsHeld = options?.wantsHeld?.bind(options);
        return inner.subscribe(handler, options);
      },
    };
    // No hold: the thread is let go as its turn ends.
    const ra = await rig({ dir: freshDir(), sweepMs: 60_000, threadHoldMs: 0, coordination });
    rigs.push(ra);
    const wants = (thread: string) => wantsHeld?.(`gw:mock:${thread}`);
    expect(wants("T")).toBe(false);
    await ra.gateway.inject({ thread: "T", text: "use wait_gate first", id: "m1" });
    await until(() => ra.gates.calls.length === 1, "the turn at its gate");
    expect([wants("T"), wants("U")]).toEqual([true, false]);
    ra.gates.openAll();
    await until(() => released.includes("gw:mock:T"), "let go after its turn");
    // Let go: still wanted for a moment (a message may have been recorded as it went), then not.
    vi.useFakeTimers({ toFake: ["Date"] });
    expect([wants("T"), wants("U")]).toEqual([true, false]);
    vi.setSystemTime(Date.now() + RECENT_LET_GO_MS + 1);
    expect([wants("T"), wants("U")]).toEqual([false, false]);
  });
});
