// A leadership given back is announced by the statement that gives the lock back (the link's lock
// statement, `unlock-notify`): one round trip less before a waiting instance tries (a handover of
// session-core's outbox partitions, #45.3) and one statement less a release. A give-back asked
// again alone after a failed statement carries no NOTIFY: its caller publishes the announcement.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it, vi } from "vitest";
import { Bus, InstanceLink, Leadership } from "../src/index.js";
import { LockBatch, type LockOp } from "../src/lock-batch.js";
import { usePostgres, waitFor } from "./helpers.js";

/** Longer than any wait below: a take seen here came from the announcement, not a retry. */
const RARE_RETRY_MS = 600_000;

describe.skipIf(postgresMissing)("a leadership given back, over PostgreSQL", () => {
  const pg = usePostgres();

  it("is announced by the statement giving the lock back: no publish of its own, and the waiting instance takes it at once", async () => {
    const name = "outbox:2";
    const links = [0, 1].map(() => new InstanceLink({ connectionString: pg.url, healthCheckMs: 0 }));
    const buses = links.map((link) => new Bus(link));
    const leaderships: Leadership[] = [];
    try {
      for (const [i, link] of links.entries()) {
        await link.connect();
        await buses[i]?.start();
        leaderships.push(new Leadership(link, { retryMs: RARE_RETRY_MS, bus: buses[i] as Bus }));
      }
      const [la, lb] = leaderships as [Leadership, Leadership];
      const ha = la.lead(name, { onAcquired: () => {} });
      await waitFor("a leads", () => ha.isLeader, 5_000);
      const bTries = vi.spyOn(links[1] as InstanceLink, "tryLock");
      const hb = lb.lead(name, { onAcquired: () => {} });
      // b's first try (sent at once) finds the lock held; its next is RARE_RETRY_MS away.
      expect(await bTries.mock.results[0]?.value).toBe(false);
      const published = vi.spyOn(buses[0] as Bus, "publish");
      const aQueries = vi.spyOn(links[0] as InstanceLink, "query");
      await ha.stop();
      await waitFor("b leads after a's announcement", () => hb.isLeader, 10_000);
      expect(published).not.toHaveBeenCalled();
      expect(aQueries).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
      for (const l of leaderships) await l.stop();
      for (const b of buses) await b.stop();
      for (const link of links) await link.close();
    }
  });
});

describe("a give-back with its NOTIFY in a statement that failed", () => {
  it("is asked again as a plain give-back and answered released (the caller announces); alone and given back, notified", async () => {
    const statements: [LockOp, string, string | undefined][][] = [];
    const batch = new LockBatch(async (ops, keys, notifies) => {
      statements.push(ops.map((op, i) => [op, keys[i] as string, notifies[i]?.payload]));
      if (statements.length === 1) throw new Error("out of shared memory");
      return new Set(keys);
    });
    const notify = { channel: "c", payload: "released 1" };
    const answers = await Promise.all([batch.unlockAndNotify("1", notify), batch.request("lock", "2")]);
    expect(answers).toEqual(["released", true]);
    expect(statements).toEqual([
      [
        ["unlock-notify", "1", "released 1"],
        ["lock", "2", undefined],
      ],
      [["unlock", "1", undefined]],
      [["retake", "2", undefined]],
    ]);
    expect(await batch.unlockAndNotify("3", notify)).toBe("notified");
    const none = new LockBatch(async () => new Set<string>());
    expect(await none.unlockAndNotify("4", notify)).toBe("not-held");
  });
});
