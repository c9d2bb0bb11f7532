// A leadership given back is announced over the bus (#45.3 d): the other instances may then retry
// rarely (retryMs bounds only the takeover after a leader died) and still take over a handover at once.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it, vi } from "vitest";
import { Bus, InstanceLink, Leadership, leaderLockName } from "../src/index.js";
import { limitedRole, sleep, usePostgres, waitFor } from "./helpers.js";

/** Longer than any wait below: a takeover seen here came from the announcement, not a retry. */
const RARE_RETRY_MS = 600_000;
/** The bus kind of a release announcement (leadership.ts). */
const RELEASED = "leader-released";

describe.skipIf(postgresMissing)("a leadership given back", () => {
  const pg = usePostgres();

  it("is taken by a waiting instance at once, without waiting for its retry", async () => {
    const name = "telegram:bot";
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
      const hb = lb.lead(name, { onAcquired: () => {} });
      // b's first try (sent at once) finds the lock held; its next is RARE_RETRY_MS away.
      await sleep(500);
      expect(hb.isLeader).toBe(false);
      await ha.stop();
      await waitFor("b leads after a's announcement", () => hb.isLeader, 10_000);
      expect(hb.isLeader).toBe(true);
    } finally {
      for (const l of leaderships) await l.stop();
      for (const b of buses) await b.stop();
      for (const link of links) await link.close();
    }
  });

  it("won by a try still in flight when its lead was stopped, is given back announced: a waiting instance takes it at once", async () => {
    const name = "outbox:3";
    const lock = leaderLockName(name);
    const links = [0, 1].map(() => new InstanceLink({ connectionString: pg.url, healthCheckMs: 0 }));
    const buses = links.map((link) => new Bus(link));
    const leaderships: Leadership[] = [];
    const holder = await pg.link({ healthCheckMs: 0 });
    try {
      for (const [i, link] of links.entries()) {
        await link.connect();
        await buses[i]?.start();
        leaderships.push(new Leadership(link, { retryMs: RARE_RETRY_MS, bus: buses[i] as Bus }));
      }
      const [la, lb] = leaderships as [Leadership, Leadership];
      const [a, b] = links as [InstanceLink, InstanceLink];
      // b waits in line: its first try finds the lock held (here by a plain link: no announcement).
      expect(await holder.tryLock(lock)).toBe(true);
      const bTries = vi.spyOn(b, "tryLock");
      const hb = lb.lead(name, { onAcquired: () => {} });
      expect(await bTries.mock.results[0]?.value).toBe(false);
      expect(await holder.unlock(lock)).toBe(true);
      // a's lead stopped in the tick it began (an outbox helper given enough partitions): its try,
      // already sent, takes the lock, and the stopped lead gives it back.
      const aTries = vi.spyOn(a, "tryLock");
      const ha = la.lead(name, { onAcquired: () => {} });
      await ha.stop();
      expect(await aTries.mock.results[0]?.value).toBe(true);
      expect(a.isHeld(lock)).toBe(false);
      // Given back without a word, b would wait its retry (RARE_RETRY_MS): the partition unsent.
      await waitFor("b leads after a's announcement", () => hb.isLeader, 10_000);
      expect(hb.isLeader).toBe(true);
    } finally {
      vi.restoreAllMocks();
      for (const l of leaderships) await l.stop();
      for (const bus of buses) await bus.stop();
      for (const link of links) await link.close();
    }
  });

  it("is not announced when the server refused to give the lock back", async () => {
    const rights = await limitedRole(pg.mon, pg.url, "release_refused");
    const link = new InstanceLink({ connectionString: rights.url, healthCheckMs: 0 });
    const bus = new Bus(link);
    const errors: string[] = [];
    const leadership = new Leadership(link, { bus, onError: (_e, context) => errors.push(context) });
    try {
      await link.connect();
      await bus.start();
      const announced: string[] = [];
      // The bus hears its own session's NOTIFYs, in the order they were sent.
      bus.subscribe(RELEASED, (m) => void announced.push(m.target));
      const handle = leadership.lead("slack:refused", { onAcquired: () => {} });
      await waitFor("led", () => handle.isLeader, 5_000);
      await rights.revoke();
      await handle.stop();
      expect(errors).toEqual(['leadership "slack:refused": unlock']);
      await bus.publish({ kind: RELEASED, target: "marker" });
      await waitFor("the marker sent after stop()", () => announced.includes("marker"), 5_000);
      expect(announced).toEqual(["marker"]);
    } finally {
      await rights.grant();
      await leadership.stop();
      await bus.stop();
      await link.close();
    }
  });
});
