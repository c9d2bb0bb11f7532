// A claim answered "held" from what the instance remembers can be stale by the time its change runs
// inside the thread's lock (the change queued ahead of it let the thread go): withHeld takes the
// thread again, a few times at most, then leaves the message to the sweep.
import { describe, expect, it } from "vitest";
import { gatewayThreadId } from "../src/threads.js";
import { owner } from "./ownership-rig.js";

describe("a claim gone stale inside the thread's lock", () => {
  it("takes the thread again and runs its change when the change ahead of it let the thread go", async () => {
    // No hold: a thread with no work is let go as its change settles.
    const o = owner(10, 0);
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const first = o.own.withHeld("mock", "A", () => gate);
    await new Promise((r) => setTimeout(r, 0));
    let ran = 0;
    const second = o.own.withHeld("mock", "A", async () => {
      ran += 1;
    });
    open();
    expect(await first).toBe("ran");
    expect(await second).toBe("ran");
    expect(ran).toBe(1);
  });

  it("takes a thread lost each time it is taken three times, then leaves the change to the sweep and keeps no state for it", async () => {
    let adopted = 0;
    const o = owner(10, 600_000, {
      // Each take is followed, ahead of the change, by the lock found gone.
      adopt: async ({ own, threads }) => {
        adopted += 1;
        void threads.with("mock", "A", async () => own.lost([gatewayThreadId("mock", "A")]));
      },
    });
    let ran = 0;
    const answer = await o.own.withHeld("mock", "A", async () => {
      ran += 1;
    });
    expect(answer).toBe("free");
    expect(ran).toBe(0);
    expect(adopted).toBe(3);
    // The state each stale look made is not kept for a thread not held.
    expect(o.threads.peek("mock", "A")).toBeUndefined();
  });
});
