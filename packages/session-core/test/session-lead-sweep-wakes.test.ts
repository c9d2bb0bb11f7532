// The look for work nobody took on several instances (#45.3, idle): its task is timed to the next
// look, so an instance at rest that does not lead wakes for it once in 16 periods (it woke every
// period to count them off), the leader's idle looks are 2, 4, then 8 periods apart, and a new
// leader looks within a period. Fake clock; the sweep task's runs are its wake-ups.
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionParts } from "../src/parts.js";
import { Scheduler } from "../src/scheduler.js";
import { SessionLead, type SessionLeadDeps } from "../src/session-lead.js";
import { createMemoryCluster } from "../src/testing/index.js";

afterEach(() => {
  vi.useRealTimers();
});

const PERIOD = 1000;

/** A shared session's lead part with a real scheduler; its looks (ownership.sweep) counted. */
function lead(holdsAny: boolean) {
  const logger = pino({ level: "silent" });
  const looks: number[] = [];
  const start = Date.now();
  const parts = {
    sender: {
      wake: () => {},
      start: () => {},
      stop: async () => {},
      restrict: () => {},
      running: true,
      pressure: undefined,
    },
    registry: { get: () => undefined, list: () => [] },
    // Taking the lead recovers runs that are not gateway turns: none here. (Not a vi.mock of
    // recovery.js: this project's files share modules, so a mock would not reach session-lead.js.)
    runs: { interrupted: async () => [] },
    store: { interactions: { listOpen: async () => [] }, runStore: { list: async () => [] } },
    logger,
    stopping: () => false,
  } as unknown as SessionParts;
  const ownership = {
    holdsAny,
    sweep: async () => {
      looks.push((Date.now() - start) / PERIOD);
      return false;
    },
  };
  const scheduler = new Scheduler(logger);
  const deps = {
    parts,
    coordination: createMemoryCluster().instance("a"),
    ownership,
    scheduler,
    approvals: { expireDue: async () => {} },
  } as unknown as SessionLeadDeps;
  const l = new SessionLead(deps);
  l.upkeep(PERIOD);
  const wakes = () => scheduler.list().find((t) => t.name === "session:sweep")?.runs ?? 0;
  return { lead: l, looks, wakes, scheduler };
}

describe("the sweep task's wake-ups on several instances", () => {
  it("an instance that does not lead and holds no thread wakes once in 16 periods and lists nothing", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { looks, wakes, scheduler } = lead(false);
    await vi.advanceTimersByTimeAsync(48 * PERIOD);
    expect(looks).toEqual([]);
    expect(wakes()).toBe(3); // periods 1, 17, 33
    scheduler.stopAll();
  });

  it("an instance that does not lead looks every 16th period while it holds a thread", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { looks, wakes, scheduler } = lead(true);
    await vi.advanceTimersByTimeAsync(48 * PERIOD);
    expect(looks).toEqual([1, 17, 33]);
    expect(wakes()).toBe(3);
    scheduler.stopAll();
  });

  it("the leader at rest looks 2, 4, then 8 periods apart, waking only to look", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { lead: l, looks, wakes, scheduler } = lead(false);
    await l.lead();
    await vi.advanceTimersByTimeAsync(40 * PERIOD);
    // Taking the lead at 0 times the first look a period on: 1, then +2, +4, +8, +8...
    expect(looks).toEqual([1, 3, 7, 15, 23, 31, 39]);
    expect(wakes()).toBe(looks.length);
    scheduler.stopAll();
  });

  it("an instance that takes the lead looks within a period, not at its follower's 16th", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { lead: l, looks, scheduler } = lead(false);
    await vi.advanceTimersByTimeAsync(3 * PERIOD); // woke at 1: next at 17
    expect(looks).toEqual([]);
    await l.lead();
    await vi.advanceTimersByTimeAsync(PERIOD);
    expect(looks).toEqual([4]);
    scheduler.stopAll();
  });
});
