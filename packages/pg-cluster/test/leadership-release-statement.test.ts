// A leadership given back is announced by the statement that gives the lock back (the link's lock
// statement, `unlock-notify`): one round trip less before a waiting instance tries (a handover of
// session-core's outbox partitions, #45.3) and one statement less a release. A give-back asked
// again alone after a failed statement carries no NOTIFY: its caller publishes the announcement.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it, vi } from "vitest";
import { LockBatch, type LockOp } from "../src/lock-batch.js";
import { usePostgres, waitFor } from "./helpers.js";
import { leading, waitingInLine, withTwoInstances } from "./two-instances.js";

describe.skipIf(postgresMissing)("a leadership given back, over PostgreSQL", () => {
  const pg = usePostgres();

  it("is announced by the statement giving the lock back: no publish of its own, and the waiting instance takes it at once", async () => {
    const name = "outbox:2";
    await withTwoInstances(pg.url, async ({ links: [a, b], buses: [busA], leaderships: [la, lb] }) => {
      const ha = await leading(la, name);
      const hb = await waitingInLine(lb, b, name);
      const published = vi.spyOn(busA, "publish");
      const aQueries = vi.spyOn(a, "query");
      await ha.stop();
      await waitFor("b leads after a's announcement", () => hb.isLeader, 10_000);
      expect(published).not.toHaveBeenCalled();
      expect(aQueries).not.toHaveBeenCalled();
    });
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
