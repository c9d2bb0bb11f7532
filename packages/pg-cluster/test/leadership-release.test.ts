// A leadership given back is announced over the bus (#45.3 d): the other instances may then retry
// rarely (retryMs bounds only the takeover after a leader died) and still take over a handover at once.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { Bus, InstanceLink, Leadership } from "../src/index.js";
import { sleep, usePostgres, waitFor } from "./helpers.js";

/** Longer than any wait below: a takeover seen here came from the announcement, not a retry. */
const RARE_RETRY_MS = 600_000;

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
});
