// When a waiting instance tries again, and what the bus's release announcements make it do: it
// retries every retryMs (2 s by default) give or take a quarter, so instances started together do
// not all try in one instant; it ignores its own announcement (a resigned leader waits its retry,
// giving another instance the handover) and one for a name it does not contend for; a failed
// announcement is reported by context. Fake timers over a real PostgreSQL for the retry period.
// Written from the survivors of `pnpm mutate pg-cluster src/leadership.ts` (#44).
import { postgresMissing } from "@agentsvc/pg-test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Bus, type InstanceLink, Leadership, leaderLockName } from "../src/index.js";
import { usePostgres, waitFor } from "./helpers.js";

const realSetTimeout = globalThis.setTimeout;
const realTick = () => new Promise((r) => realSetTimeout(r, 20));

describe.skipIf(postgresMissing)("a waiting instance's retries and the release announcements", () => {
  const pg = usePostgres();

  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  /** Lock attempts the link was asked for, and a wait until the last one has settled. */
  function attemptsOf(link: InstanceLink) {
    const spy = vi.spyOn(link, "tryLock");
    return {
      count: () => spy.mock.calls.length,
      settled: async () => {
        await spy.mock.results.at(-1)?.value;
        await realTick();
      },
    };
  }

  it("tries again every retryMs, 2 s by default, spread by a quarter either way", async () => {
    const holder = await pg.link({ healthCheckMs: 0 });
    expect(await holder.tryLock(leaderLockName("telegram:retry"))).toBe(true);
    expect(await holder.tryLock(leaderLockName("slack:retry"))).toBe(true);
    const link = await pg.link({ healthCheckMs: 0 });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const random = vi.spyOn(Math, "random");
    const tries = attemptsOf(link);
    /**
     * The next attempt comes exactly `ms` after the last one failed; the one after it is timed with
     * Math.random() answering `thenRandom` (set once the last attempt has timed its retry).
     */
    const next = async (ms: number, thenRandom: number) => {
      await tries.settled();
      random.mockReturnValue(thenRandom);
      const before = tries.count();
      await vi.advanceTimersByTimeAsync(ms - 1);
      expect(tries.count()).toBe(before);
      await vi.advanceTimersByTimeAsync(1);
      expect(tries.count()).toBe(before + 1);
    };
    const byDefault = new Leadership(link);
    const custom = new Leadership(link, { retryMs: 400 });
    try {
      random.mockReturnValue(0.5);
      byDefault.lead("telegram:retry", { onAcquired: () => undefined });
      expect(tries.count()).toBe(1);
      await next(2000, 0);
      await next(1500, 0.75);
      await next(2250, 0.5);
      await tries.settled();
      await byDefault.stop();
      custom.lead("slack:retry", { onAcquired: () => undefined });
      await next(400, 0);
      await next(300, 0.5);
      await tries.settled();
    } finally {
      vi.useRealTimers();
      await byDefault.stop();
      await custom.stop();
    }
  });

  it("a resigned leader does not take the lead again on its own announcement; an announcement for a name it does not contend for changes nothing", async () => {
    const busErrors: string[] = [];
    const link = await pg.link({ healthCheckMs: 0 });
    const bus = new Bus(link, { onError: (_e, context) => busErrors.push(context) });
    await bus.start();
    const otherLink = await pg.link({ healthCheckMs: 0 });
    const otherBus = new Bus(otherLink);
    await otherBus.start();
    const announced: string[] = [];
    bus.subscribe("leader-released", (m) => void announced.push(m.target));
    const leadership = new Leadership(link, { retryMs: 600_000, bus, onError: () => undefined });
    const other = new Leadership(otherLink, { retryMs: 600_000, bus: otherBus });
    const tries = attemptsOf(link);
    try {
      let acquired = 0;
      const handle = leadership.lead("discord:resign", {
        onAcquired: async () => {
          acquired += 1;
          throw new Error("could not start the socket");
        },
      });
      await waitFor("its own announcement", () => announced.includes("discord:resign"), 5_000);
      expect(handle.isLeader).toBe(false);
      expect(acquired).toBe(1);
      expect(tries.count()).toBe(1);
      // Another instance gives back a name this one does not lead.
      const elsewhere = other.lead("signal:elsewhere", { onAcquired: () => undefined });
      await waitFor("led there", () => elsewhere.isLeader, 5_000);
      await elsewhere.stop();
      await waitFor("that announcement", () => announced.includes("signal:elsewhere"), 5_000);
      expect(tries.count()).toBe(1);
      expect(busErrors).toEqual([]);
    } finally {
      await leadership.stop();
      await other.stop();
    }
  });

  it("an announcement the bus refuses is reported as the release announcement's failure; the lock is given back all the same", async () => {
    const errors: [string, string][] = [];
    const link = await pg.link({ healthCheckMs: 0 });
    const bus = new Bus(link);
    await bus.start();
    const leadership = new Leadership(link, { bus, onError: (e, context) => errors.push([e.name, context]) });
    // A name too long for a NOTIFY payload: the lock is fine (it is hashed), the announcement is not.
    const name = `email:${"x".repeat(8000)}`;
    const handle = leadership.lead(name, { onAcquired: () => undefined });
    await waitFor("led", () => handle.isLeader, 5_000);
    await handle.stop();
    expect(errors).toEqual([["BusPayloadTooLargeError", `leadership "${name}": release announcement`]]);
    expect(link.isHeld(leaderLockName(name))).toBe(false);
  });
});
