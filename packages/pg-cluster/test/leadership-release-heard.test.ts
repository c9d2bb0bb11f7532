// A release announced while a waiting instance's own try is in flight, and a lead that waits for a
// release before its first try (LeadOptions.tryAfterMs): the two ways a waiting instance can miss a
// handover and leave a lock free for its retryMs (session-core's outbox partitions, #45.3).
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it, vi } from "vitest";
import { Bus, InstanceLink, Leadership, leaderLockName } from "../src/index.js";
import { usePostgres, waitFor } from "./helpers.js";

/** Longer than any wait below: a take seen here came from the announcement, not a retry. */
const RARE_RETRY_MS = 600_000;
/** The bus kind of a release announcement (leadership.ts). */
const RELEASED = "leader-released";

describe.skipIf(postgresMissing)("a waiting instance", () => {
  const pg = usePostgres();

  async function twoInstances() {
    const links = [0, 1].map(() => new InstanceLink({ connectionString: pg.url, healthCheckMs: 0 }));
    const buses = links.map((link) => new Bus(link));
    const leaderships: Leadership[] = [];
    for (const [i, link] of links.entries()) {
      await link.connect();
      await buses[i]?.start();
      leaderships.push(new Leadership(link, { retryMs: RARE_RETRY_MS, bus: buses[i] as Bus }));
    }
    const close = async () => {
      vi.restoreAllMocks();
      for (const l of leaderships) await l.stop();
      for (const b of buses) await b.stop();
      for (const link of links) await link.close();
    };
    return { links, buses, leaderships, close };
  }

  it("that hears a release while its own try is in flight tries again once that try fails", async () => {
    const name = "outbox:2";
    const { links, buses, leaderships, close } = await twoInstances();
    try {
      const [la, lb] = leaderships as [Leadership, Leadership];
      const b = links[1] as InstanceLink;
      const ha = la.lead(name, { onAcquired: () => {} });
      await waitFor("a leads", () => ha.isLeader, 5_000);
      // b's first try is answered (held by a) but its answer reaches b only once a's release has.
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const real = b.tryLock.bind(b);
      let answered: boolean | undefined;
      const tries = vi.spyOn(b, "tryLock").mockImplementationOnce(async (lock, onLost) => {
        answered = await real(lock, onLost);
        await gate;
        return answered;
      });
      let heard = false;
      buses[1]?.subscribe(RELEASED, (m) => {
        if (m.target === name) heard = true;
      });
      const hb = lb.lead(name, { onAcquired: () => {} });
      await waitFor("b's first try answered", () => answered !== undefined, 10_000);
      expect(answered).toBe(false);
      await ha.stop();
      await waitFor("b hears a's release during its try", () => heard, 10_000);
      open();
      // Dropped, the release left b waiting for its retry (RARE_RETRY_MS) with the lock free.
      await waitFor("b leads", () => hb.isLeader, 10_000);
      expect(tries).toHaveBeenCalledTimes(2);
    } finally {
      await close();
    }
  });

  it("with tryAfterMs sends no try before it, and takes a release announced meanwhile at once", async () => {
    const name = "outbox:1";
    const { links, leaderships, close } = await twoInstances();
    try {
      const [la, lb] = leaderships as [Leadership, Leadership];
      const b = links[1] as InstanceLink;
      const ha = la.lead(name, { onAcquired: () => {} });
      await waitFor("a leads", () => ha.isLeader, 5_000);
      const tries = vi.spyOn(b, "tryLock");
      const hb = lb.lead(name, { onAcquired: () => {} }, { tryAfterMs: RARE_RETRY_MS });
      // A lead without it sends its first try in this tick.
      expect(tries).not.toHaveBeenCalled();
      await ha.stop();
      await waitFor("b leads after a's announcement", () => hb.isLeader, 10_000);
      expect(tries).toHaveBeenCalledTimes(1);
    } finally {
      await close();
    }
  });

  it("with tryAfterMs takes a free lock nobody announces once that time is over", async () => {
    const name = "outbox:3";
    const { links, leaderships, close } = await twoInstances();
    try {
      const lb = leaderships[1] as Leadership;
      const hb = lb.lead(name, { onAcquired: () => {} }, { tryAfterMs: 50 });
      await waitFor("b leads after its wait", () => hb.isLeader, 10_000);
      expect((links[1] as InstanceLink).isHeld(leaderLockName(name))).toBe(true);
    } finally {
      await close();
    }
  });
});
