// A leadership given back is announced over the bus (#45.3 d): the other instances may then retry
// rarely (retryMs bounds only the takeover after a leader died) and still take over a handover at once.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it, vi } from "vitest";
import { Bus, InstanceLink, Leadership, leaderLockName } from "../src/index.js";
import { limitedRole, usePostgres, waitFor } from "./helpers.js";
import { leading, RELEASED, waitingInLine, withTwoInstances } from "./two-instances.js";

describe.skipIf(postgresMissing)("a leadership given back", () => {
  const pg = usePostgres();

  it("is taken by a waiting instance at once, without waiting for its retry", async () => {
    const name = "telegram:bot";
    await withTwoInstances(pg.url, async ({ links: [, b], leaderships: [la, lb] }) => {
      const ha = await leading(la, name);
      const hb = await waitingInLine(lb, b, name);
      expect(hb.isLeader).toBe(false);
      await ha.stop();
      await waitFor("b leads after a's announcement", () => hb.isLeader, 10_000);
      expect(hb.isLeader).toBe(true);
    });
  });

  it("won by a try still in flight when its lead was stopped, is given back announced: a waiting instance takes it at once", async () => {
    const name = "outbox:3";
    const lock = leaderLockName(name);
    const holder = await pg.link({ healthCheckMs: 0 });
    await withTwoInstances(pg.url, async ({ links: [a, b], leaderships: [la, lb] }) => {
      // b waits in line: its first try finds the lock held (here by a plain link: no announcement).
      expect(await holder.tryLock(lock)).toBe(true);
      const hb = await waitingInLine(lb, b, name);
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
    });
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
