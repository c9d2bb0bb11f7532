// A take that finds the thread's lock held elsewhere, with the announcement to the holder in the
// same statement (ThreadLocks.tryLockOrNotify, #45.3): on several instances a message recorded on
// one that does not hold its thread made a failed take and then a NOTIFY, two statements on the
// link; now one, and the NOTIFY commits only when the take failed.
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { Bus, type BusMessage, busPayload, InstanceLink, ThreadLocks, threadKey } from "../src/index.js";
import { usePostgres, waitFor } from "./helpers.js";
import { LockBatch, type LockOp } from "../src/lock-batch.js";
import { countingProxy } from "./proxies.js";

describe.skipIf(postgresMissing)("a take with an announcement to the holder", () => {
  const pg = usePostgres();

  it("held elsewhere: not taken, and the holder hears the announcement sent with the take, one statement in all; taken: nothing is announced", async () => {
    const holder = await pg.link({ healthCheckMs: 0 });
    const heard: BusMessage[] = [];
    const bus = new Bus(holder);
    await bus.start();
    bus.subscribe("thread", (m) => void heard.push(m));
    const proxy = await countingProxy(pg.url);
    const other = new InstanceLink({ connectionString: proxy.url, healthCheckMs: 0, serverKeepalive: false });
    await other.connect();
    try {
      const mine = new ThreadLocks(holder);
      const theirs = new ThreadLocks(other);
      const key = threadKey("http", "T");
      expect(await mine.tryLock(key)).toBe(true);
      const message = { kind: "thread", target: "http:T", held: true };
      const notify = { channel: bus.channel, payload: busPayload(message) };
      const before = proxy.statements;
      expect(await theirs.tryLockOrNotify(key, notify)).toBe("notified");
      expect(proxy.statements - before).toBe(1);
      await waitFor("the holder hears it", () => heard.length === 1, 5_000);
      expect(heard).toEqual([message]);
      expect(theirs.isHeld(key)).toBe(false);

      // Free now: taken, and no announcement (the holder's bus hears nothing more).
      expect(await mine.unlock(key)).toBe(true);
      expect(await theirs.tryLockOrNotify(key, notify)).toBe("taken");
      expect(theirs.isHeld(key)).toBe(true);
      await bus.publish({ kind: "thread", target: "marker" });
      await waitFor("the marker", () => heard.some((m) => m.target === "marker"), 5_000);
      expect(heard.map((m) => m.target)).toEqual(["http:T", "marker"]);
      // Held here already: nothing sent, the caller announces by itself.
      expect(await theirs.tryLockOrNotify(key, notify)).toBe("not-taken");
    } finally {
      await other.close();
      await proxy.close();
      await bus.stop();
    }
  });
});

describe("a take with an announcement in a statement that fails", () => {
  it("is asked again as a take alone, without its NOTIFY: not-taken when held elsewhere, so its caller announces by itself", async () => {
    const statements: [LockOp, string, string | null][][] = [];
    const batch = new LockBatch(async (ops, keys, notifies) => {
      statements.push(ops.map((op, i) => [op, keys[i]!, notifies[i]?.payload ?? null]));
      if (statements.length === 1) throw new Error("out of shared memory");
      return new Set(keys.filter((k) => k === "2"));
    });
    const notify = (payload: string) => ({ channel: "c", payload });
    const answers = await Promise.all([
      batch.lockOrNotify("1", notify("one")),
      batch.lockOrNotify("2", notify("two")),
    ]);
    expect(answers).toEqual(["not-taken", "taken"]);
    expect(statements).toEqual([
      [
        ["lock-or-notify", "1", "one"],
        ["lock-or-notify", "2", "two"],
      ],
      [["retake", "1", null]],
      [["retake", "2", null]],
    ]);
    // Answered by a statement of its own: notified when not taken.
    expect(await batch.lockOrNotify("3", notify("three"))).toBe("notified");
  });
});
