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

describe("PollLoop: deliveries that keep failing (#43 item 10)", () => {
  it("a loop whose every delivery fails fetches at most 7 times in a minute, not once per second", async () => {
    const rig = loopRig();
    rig.items.push({ id: 1, text: "poisoned" });
    const l = loop(rig, {
      deliver: async () => {
        throw new Error("answerCallbackQuery refused: 400");
      },
    });
    await rig.runFor(l, 60_000);
    // Backoff 1, 2, 4, 8, 16, 32 s: six fetches in the first minute (a reset per working fetch: 60).
    expect(rig.fetches).toBeLessThanOrEqual(7);
    expect(rig.state.get("cursor")).toBeUndefined();
  });

  it("after the bound the item is skipped with one error log, its position stored, and the next one delivered", async () => {
    const rig = loopRig();
    rig.items.push({ id: 1, text: "poisoned" }, { id: 2, text: "fine" });
    const delivered: number[] = [];
    const l = loop(rig, {
      maxItemAttempts: 3,
      skipItemAfterMs: 0,
      deliver: async (item) => {
        if (item.id === 1) throw new Error("refused");
        delivered.push(item.id);
      },
    });
    await rig.runFor(l, 30_000);
    expect(delivered).toEqual([2]);
    expect(rig.state.get("cursor")).toBe(3);
    const skipped = rig.logs.filter((r) => /failed every attempt; it is skipped/.test(r.msg));
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ level: 50, item: 1, attempts: 3 });
  });

  it("an item is not skipped before skipItemAfterMs since its first failure, however many tries", async () => {
    const rig = loopRig();
    rig.items.push({ id: 1, text: "store down" });
    const l = loop(rig, {
      maxItemAttempts: 2,
      skipItemAfterMs: 10 * 60_000,
      backoff: { baseMs: 1_000, maxMs: 30_000, jitter: 0 },
      deliver: async () => {
        throw new Error("store down");
      },
    });
    await rig.runFor(l, 5 * 60_000);
    expect(rig.fetches).toBeGreaterThan(2);
    expect(rig.state.get("cursor")).toBeUndefined();
    await rig.runFor(l, 6 * 60_000);
    expect(rig.state.get("cursor")).toBe(2);
  });
});

describe("PollLoop: position, failures and reconnects", () => {
  it("stores the position after each delivered item, so a new loop resumes past it", async () => {
    const rig = loopRig();
    rig.items.push({ id: 1, text: "a" }, { id: 2, text: "b" });
    const seen: number[] = [];
    let crashed = false;
    const deliver = async (item: Item) => {
      if (item.id === 2 && !crashed) {
        crashed = true;
        throw new Error("crash before b was recorded");
      }
      seen.push(item.id);
    };
    await loop(rig, { deliver }).poll(new AbortController().signal);
    expect(rig.state.get("cursor")).toBe(2);
    await loop(rig, { deliver }).poll(new AbortController().signal);
    expect(seen).toEqual([1, 2]);
    expect(rig.state.get("cursor")).toBe(3);
  });

  it("429 waits the Retry-After the platform gave, then polls with the backoff reset", async () => {
    const rig = loopRig();
    let calls = 0;
    const l = loop(rig, {
      fetch: async (cursor) => {
        calls += 1;
        if (calls === 1)
          throw new PlatformCallError("test", "getUpdates", { status: 429, retryAfterMs: 7_000 });
        return rig.fetchFrom(cursor);
      },
    });
    const signal = new AbortController().signal;
    expect(await l.poll(signal)).toBe(7_000);
    expect(await l.poll(signal)).toBe(0);
  });

  it.each([401, 403])("%i stops the loop and names the variable to the session", async (status) => {
    const rig = loopRig();
    const l = loop(rig, {
      fetch: async () => {
        throw new PlatformCallError("test", "getUpdates", { status, detail: "Unauthorized" });
      },
    });
    expect(await l.poll(new AbortController().signal)).toBeNull();
    expect(rig.rejected).toEqual([{ envVar: "BOT_TOKEN", detail: `getUpdates: ${status} Unauthorized` }]);
  });

  it("a fetch that works after failed ones counts one reconnect; the failures back off doubling", async () => {
    const rig = loopRig();
    let down = 3;
    const l = loop(rig, {
      fetch: async (cursor) => {
        if (down-- > 0) throw new PlatformCallError("test", "getUpdates", { network: true, detail: "reset" });
        return rig.fetchFrom(cursor);
      },
    });
    const signal = new AbortController().signal;
    const delays = [await l.poll(signal), await l.poll(signal), await l.poll(signal), await l.poll(signal)];
    expect(delays).toEqual([1_000, 2_000, 4_000, 0]);
    expect(l.reconnects).toBe(1);
    expect(rig.reconnected).toBe(1);
  });

  it("a fetch that fails after deliveries that failed waits the first backoff step, not the deliveries' next", async () => {
    // A connection reset after four failed deliveries waited 16 s (their shared backoff's fifth step);
    // a poll's wait after a network failure stays short for its first failure.
    const rig = loopRig();
    rig.items.push({ id: 1, text: "not recorded yet" });
    let fetches = 0;
    const l = loop(rig, {
      fetch: async (cursor) => {
        fetches += 1;
        if (fetches === 5)
          throw new PlatformCallError("test", "getUpdates", { network: true, detail: "reset" });
        return rig.fetchFrom(cursor);
      },
      deliver: async () => {
        throw new Error("the store is down");
      },
    });
    const signal = new AbortController().signal;
    const delays: (number | null)[] = [];
    for (let i = 0; i < 7; i++) delays.push(await l.poll(signal));
    // Deliveries 1, 2, 4, 8 s; the reset 1 s; the deliveries go on at 16 and 32 s.
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 1_000, 16_000, 32_000]);
  });

  it("an aborted signal ends the loop without a fetch", async () => {
    const rig = loopRig();
    const controller = new AbortController();
    controller.abort();
    expect(await loop(rig).poll(controller.signal)).toBeNull();
    expect(rig.fetches).toBe(0);
  });
});

describe("PollLoop: deafAfter (#43 item 11)", () => {
  it("fetches that work but bring nothing for deafAfter log a warning and restart the poll, once per period", async () => {
    const rig = loopRig();
    let restarts = 0;
    const l = loop(rig, {
      deafAfterMs: 120_000,
      restart: () => {
        restarts += 1;
      },
    });
    await rig.runFor(l, 100_000);
    expect(restarts).toBe(0);
    await rig.runFor(l, 50_000);
    expect(restarts).toBe(1);
    expect(l.reconnects).toBe(1);
    const warned = rig.logs.filter((r) => /deafAfter/.test(r.msg));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 40, deafAfterMs: 120_000 });
  });

  it("an item arriving in time keeps the poll from restarting", async () => {
    const rig = loopRig();
    let restarts = 0;
    const l = loop(rig, {
      deafAfterMs: 120_000,
      restart: () => {
        restarts += 1;
      },
    });
    await rig.runFor(l, 100_000);
    rig.items.push({ id: 1, text: "hello" });
    await rig.runFor(l, 100_000);
    expect(restarts).toBe(0);
  });
});
