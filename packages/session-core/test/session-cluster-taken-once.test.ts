// Messages recorded on the instance of several that holds their thread are read from the store by
// the first one's look; the others' own dispatch finds them taken and reads nothing (dispatch.ts).
// Found by a mutation run of dispatch.ts (#45): without the check every message of a burst cost its
// holder one more read of the thread's queued records (it ran nothing twice: the look skips what it
// took).
import { describe, expect, it } from "vitest";
import { createMemoryCluster } from "../src/testing/index.js";
import { clusterRigs, parked, rig, until } from "./session-harness.js";

const { rigs, freshDir } = clusterRigs();

describe("an instance of several holding a thread", () => {
  it("reads the thread's queued records once for two messages recorded on it while the first one's look waits", async () => {
    const dir = freshDir();
    const r = await rig({
      dir,
      coordination: createMemoryCluster().instance("a"),
      sweepMs: 60_000,
      threadHoldMs: 60_000,
    });
    rigs.push(r);
    await r.gateway.inject({ thread: "T", text: "use wait_gate first", id: "m1" });
    await until(() => r.gates.calls.length === 1, "the first turn at its gate");
    // The next look waits until the second message is recorded: it reads both.
    const second = parked();
    const looks: string[] = [];
    const queued = r.db.inbox.queued.bind(r.db.inbox);
    r.db.inbox.queued = async (gateway, thread) => {
      looks.push(thread);
      if (looks.length === 1) await second.reached();
      return queued(gateway, thread);
    };
    await r.gateway.inject({ thread: "T", text: "second", id: "m2" });
    await until(() => second.began, "the second message's look under way");
    await r.gateway.inject({ thread: "T", text: "third", id: "m3" });
    second.release();
    await until(() => r.session.snapshot("mock", "T").queued === 2, "both queued behind the first turn");
    r.gates.openAll();
    await until(() => r.gateway.textsTo("T").length === 3, "all three answered");
    await r.session.idle();
    // Kept for the hold (60 s): no let-go's last look in the test's time.
    expect(looks).toEqual(["T"]);
    expect(r.runs.starts).toHaveLength(3);
  });
});
