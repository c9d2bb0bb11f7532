// A release announced while a waiting instance's own try is in flight, and a lead that waits for a
// release before its first try (LeadOptions.tryAfterMs): the two ways a waiting instance can miss a
// handover and leave a lock free for its retryMs (session-core's outbox partitions, #45.3).
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it, vi } from "vitest";
import { leaderLockName } from "../src/index.js";
import { usePostgres, waitFor } from "./helpers.js";
import { leading, RARE_RETRY_MS, RELEASED, withTwoInstances } from "./two-instances.js";

describe.skipIf(postgresMissing)("a waiting instance", () => {
  const pg = usePostgres();

  it("that hears a release while its own try is in flight tries again once that try fails", async () => {
    const name = "outbox:2";
    await withTwoInstances(pg.url, async ({ links: [, b], buses, leaderships: [la, lb] }) => {
      const ha = await leading(la, name);
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
      buses[1].subscribe(RELEASED, (m) => {
        if (m.target === name) heard = true;
      });
      const hb = lb.lead(name, { onAcquired: () => {} });
      await waitFor("b's first try answered", () => answered !== undefined, 10_000);
      expect(answered).toBe(false);
      await ha.stop();
      await waitFor("b hears a's release during its try", () => heard, 10_000);
      // Not a second try beside the one in flight: the next waits for its answer.
      expect(tries).toHaveBeenCalledTimes(1);
      open();
      // Dropped, the release left b waiting for its retry (RARE_RETRY_MS) with the lock free.
      await waitFor("b leads", () => hb.isLeader, 10_000);
      expect(tries).toHaveBeenCalledTimes(2);
    });
  });

  it("with tryAfterMs sends no try before it, and takes a release announced meanwhile at once", async () => {
    const name = "outbox:1";
    await withTwoInstances(pg.url, async ({ links: [, b], leaderships: [la, lb] }) => {
      const ha = await leading(la, name);
      const tries = vi.spyOn(b, "tryLock");
      const hb = lb.lead(name, { onAcquired: () => {} }, { tryAfterMs: RARE_RETRY_MS });
      // A lead without it sends its first try in this tick.
      expect(tries).not.toHaveBeenCalled();
      await ha.stop();
      await waitFor("b leads after a's announcement", () => hb.isLeader, 10_000);
      expect(tries).toHaveBeenCalledTimes(1);
    });
  });

  it("with tryAfterMs takes a free lock nobody announces once that time is over", async () => {
    const name = "outbox:3";
    await withTwoInstances(pg.url, async ({ links: [, b], leaderships: [, lb] }) => {
      const hb = lb.lead(name, { onAcquired: () => {} }, { tryAfterMs: 50 });
      await waitFor("b leads after its wait", () => hb.isLeader, 10_000);
      expect(b.isHeld(leaderLockName(name))).toBe(true);
    });
  });
});
