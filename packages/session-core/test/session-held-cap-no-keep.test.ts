// Under the cap on held threads (maxHeldThreads), a thread whose turn ends while another waits for
// room is let go at once, not kept for its next message (ownership.ts settle): kept for the hold, it
// would keep the waiting thread out for the whole hold. Found by a mutation run of ownership.ts
// (#45): the cap's tests held threads for the default hold, which ends soon enough either way.
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryCluster } from "../src/testing/index.js";
import { type Rig, removeDir, rig, tempDir, until } from "./session-harness.js";

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) {
    await r.close(50);
    removeDir(r.dir);
  }
});

describe("an instance of several holding at most one thread, keeping idle threads for 10 minutes", () => {
  it("lets a thread go at its turn's end when another waits for room, which then runs", async () => {
    const cluster = createMemoryCluster();
    // No sweep and no hold's end in the test's time: only the let-go at the turn's end makes room.
    const r = await rig({
      dir: tempDir(),
      coordination: cluster.instance("a"),
      maxHeldThreads: 1,
      threadHoldMs: 600_000,
      sweepMs: 600_000,
    });
    rigs.push(r);
    await r.gateway.inject({ thread: "A", text: "use wait_gate A", id: "a1" });
    await until(() => r.gates.calls.length === 1, "A's turn at its gate");
    await r.gateway.inject({ thread: "B", text: "hello B", id: "b1" });
    expect([...cluster.holders().keys()]).toEqual(["gw:mock:A"]);
    r.gates.openAll();
    await until(() => r.gateway.textsTo("B").length === 1, "B's reply");
    expect(r.gateway.textsTo("A")).toHaveLength(1);
  });
});
