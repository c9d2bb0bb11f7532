// PollLoop at its edges: a stop in the middle of a round, the two backoffs' resets, the skip bound's
// exact time, a platform's own credential codes, an explained failure, deafAfter's exact period, and
// the optional hooks (restart, reconnected) left out.
import { describe, expect, it } from "vitest";
import { PlatformCallError, PollLoop, type PollLoopOptions } from "../src/index.js";
import { type Item, loopRig } from "./loop-rig.js";

type Rig = ReturnType<typeof loopRig>;

function loop(rig: Rig, options: Partial<PollLoopOptions<Item, number>> = {}) {
  return new PollLoop<Item, number>({
    ctx: rig.ctx,
    envVar: "BOT_TOKEN",
    call: "getUpdates",
    fetch: async (cursor) => rig.fetchFrom(cursor),
    positionAfter: (item) => item.id + 1,
    deliver: async () => {},
    itemId: (item) => item.id,
    now: rig.now,
    backoff: { baseMs: 1_000, maxMs: 60_000, jitter: 0 },
    ...options,
  });
}

const reset = () => new PlatformCallError("test", "getUpdates", { network: true, detail: "reset" });

describe("PollLoop: a stop during a round", () => {
  it("a fetch that fails because the loop was stopped ends it: no backoff, no warning", async () => {
    const rig = loopRig();
    const stop = new AbortController();
    const l = loop(rig, {
      fetch: async () => {
        stop.abort();
        throw reset();
      },
    });
    expect(await l.poll(stop.signal)).toBeNull();
    expect(rig.logs.filter((r) => r.level >= 40)).toEqual([]);
  });

  it("a delivery that fails because the loop was stopped ends it: not counted, not skipped, no error", async () => {
    const rig = loopRig();
    rig.items.push({ id: 1, text: "in flight" });
    const stop = new AbortController();
    const l = loop(rig, {
      maxItemAttempts: 1,
      skipItemAfterMs: 0,
      deliver: async () => {
        stop.abort();
        throw new Error("aborted");
      },
    });
    expect(await l.poll(stop.signal)).toBeNull();
    expect(rig.state.get("cursor")).toBeUndefined();
    expect(rig.logs.filter((r) => r.level >= 50)).toEqual([]);
  });

  it("a stop after one item is delivered delivers no more of the batch", async () => {
    const rig = loopRig();
    rig.items.push({ id: 1, text: "a" }, { id: 2, text: "b" });
    const stop = new AbortController();
    const delivered: number[] = [];
    const l = loop(rig, {
      deliver: async (item) => {
        delivered.push(item.id);
        stop.abort();
      },
    });
    expect(await l.poll(stop.signal)).toBeNull();
    expect(delivered).toEqual([1]);
    expect(rig.state.get("cursor")).toBe(2);
  });
});

describe("PollLoop: backoff resets", () => {
  it("a fetch that works resets the fetches' backoff: the next failure waits the first step again", async () => {
    const rig = loopRig();
    const fails = [true, true, false, true];
    const l = loop(rig, {
      fetch: async (cursor) => {
        if (fails.shift()) throw reset();
        return rig.fetchFrom(cursor);
      },
    });
    const signal = new AbortController().signal;
    const delays = [];
    for (let i = 0; i < 4; i++) delays.push(await l.poll(signal));
    expect(delays).toEqual([1_000, 2_000, 0, 1_000]);
  });

  it("a batch handled to its end resets the deliveries' backoff", async () => {
    const rig = loopRig();
    rig.items.push({ id: 1, text: "a" });
    const fails = [true, true, false, true];
    const l = loop(rig, {
      // The item stays on the platform, so each round delivers it again.
      positionAfter: () => 0,
      deliver: async () => {
        if (fails.shift()) throw new Error("the store is down");
      },
    });
    const signal = new AbortController().signal;
    const delays = [];
    for (let i = 0; i < 4; i++) delays.push(await l.poll(signal));
    expect(delays).toEqual([1_000, 2_000, 0, 1_000]);
  });
});

describe("PollLoop: skipping an item", () => {
  it("waits for skipItemAfterMs past the bound's tries, and skips exactly that long after the first failure", async () => {
    const rig = loopRig();
    rig.clock = 50_000;
    rig.items.push({ id: 1, text: "poisoned" });
    const l = loop(rig, {
      maxItemAttempts: 2,
      skipItemAfterMs: 3_000,
      deliver: async () => {
        throw new Error("refused");
      },
    });
    const signal = new AbortController().signal;
    // Tries at 50 000, 51 000 (the bound's, but 1 000 ms in: kept) and 53 000 (3 000 ms in: skipped).
    expect(await l.poll(signal)).toBe(1_000);
    rig.clock += 1_000;
    expect(await l.poll(signal)).toBe(2_000);
    expect(rig.state.get("cursor")).toBeUndefined();
    rig.clock += 2_000;
    expect(await l.poll(signal)).toBe(0);
    expect(rig.state.get("cursor")).toBe(2);
  });

  it("counts another item's failures on their own", async () => {
    const rig = loopRig();
    rig.items.push({ id: 1, text: "gone after one try" });
    const tried: number[] = [];
    const l = loop(rig, {
      maxItemAttempts: 2,
      skipItemAfterMs: 0,
      deliver: async (item) => {
        tried.push(item.id);
        throw new Error("refused");
      },
    });
    const signal = new AbortController().signal;
    await l.poll(signal);
    // The platform no longer has item 1 (it expired); item 2 fails once: not skipped yet.
    rig.items.splice(0, 1, { id: 2, text: "next" });
    await l.poll(signal);
    expect(tried).toEqual([1, 2]);
    expect(rig.state.get("cursor")).toBeUndefined();
  });
});

describe("PollLoop: failed fetches", () => {
  it("a code the platform's rule calls credentials stops the loop naming the variable (Telegram's 404)", async () => {
    const rig = loopRig();
    const l = loop(rig, {
      platformRule: (facts) => (facts.status === 404 ? { kind: "credentials" } : undefined),
      fetch: async () => {
        throw new PlatformCallError("test", "getUpdates", { status: 404 });
      },
    });
    expect(await l.poll(new AbortController().signal)).toBeNull();
    expect(rig.rejected).toEqual([{ envVar: "BOT_TOKEN", detail: "getUpdates: 404" }]);
  });

  it("a failure the platform explains is logged at its level with its words and the streak", async () => {
    const rig = loopRig();
    const l = loop(rig, {
      fetch: async () => {
        throw new PlatformCallError("test", "getUpdates", { status: 409, detail: "Conflict" });
      },
      explain: (facts, failures) =>
        facts.status === 409 ? { level: "error", message: `another poller (${failures})` } : undefined,
    });
    const signal = new AbortController().signal;
    await l.poll(signal);
    await l.poll(signal);
    const said = rig.logs.filter((r) => r.msg.startsWith("another poller"));
    expect(said.map((r) => [r.level, r.msg, r.failures, r.status])).toEqual([
      [50, "another poller (1)", 1, 409],
      [50, "another poller (2)", 2, 409],
    ]);
  });
});

describe("PollLoop: deafAfter and the optional hooks", () => {
  it("without deafAfterMs fetches that bring nothing never restart the poll, each waiting the interval", async () => {
    const rig = loopRig();
    const l = loop(rig, { intervalMs: 5_000, restart: () => expect.unreachable("restarted") });
    const delays = await rig.runFor(l, 600_000);
    expect(new Set(delays)).toEqual(new Set([5_000]));
    expect(l.reconnects).toBe(0);
    expect(rig.reconnected).toBe(0);
  });

  it("restarts exactly deafAfterMs after the last item, and asks again at once, not after the interval", async () => {
    const rig = loopRig();
    let restarts = 0;
    const l = loop(rig, {
      deafAfterMs: 50_000,
      intervalMs: 5_000,
      restart: () => {
        restarts += 1;
      },
    });
    const signal = new AbortController().signal;
    rig.clock = 49_999;
    expect(await l.poll(signal)).toBe(5_000);
    expect(restarts).toBe(0);
    rig.clock = 50_000;
    expect(await l.poll(signal)).toBe(0);
    expect(restarts).toBe(1);
  });

  it("works without the restart and reconnected hooks", async () => {
    const rig = loopRig();
    const { reconnected: _, ...ctx } = rig.ctx;
    let fails = 1;
    const l = loop(rig, {
      ctx,
      deafAfterMs: 50_000,
      fetch: async (cursor) => {
        if (fails-- > 0) throw reset();
        return rig.fetchFrom(cursor);
      },
    });
    const signal = new AbortController().signal;
    expect(await l.poll(signal)).toBe(1_000);
    expect(await l.poll(signal)).toBe(0);
    rig.clock = 60_000;
    expect(await l.poll(signal)).toBe(0);
    expect(l.reconnects).toBe(2);
  });
});
