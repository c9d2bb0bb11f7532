// Schedule ticks on both dialects: of concurrent claims of one tick from two instances exactly one
// wins; the pause is seen by the other instance; a recorded tick's reply pieces are found by inbox id.
import { describe, expect, it } from "vitest";
import { eachDriver, tempRoot } from "./helpers.js";

eachDriver((driver) => {
  describe("schedule ticks", () => {
    it("twenty concurrent claims of one tick from two instances: exactly one succeeds", async () => {
      const appRoot = tempRoot();
      const a = await driver.open({ appRoot });
      const b = await driver.open({ appRoot });
      const tickAt = Date.UTC(2026, 11, 1, 9, 0);
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).scheduleTicks.claim({ schedule: "digest", tickAt, instance: i % 2 ? "a" : "b" }),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect((await a.scheduleTicks.open()).map((t) => [t.schedule, t.tickAt, t.outcome])).toEqual([
        ["digest", tickAt, "claimed"],
      ]);
      await b.scheduleTicks.recorded("digest", tickAt, 7);
      expect(await a.scheduleTicks.last("digest")).toMatchObject({
        inboxId: 7,
        outcome: "recorded",
        manual: false,
      });
      await a.scheduleTicks.finish("digest", tickAt, "dead", "403 Forbidden");
      expect(await b.scheduleTicks.open()).toEqual([]);
      expect(await b.scheduleTicks.lastError("digest")).toMatchObject({
        outcome: "dead",
        error: "403 Forbidden",
      });
    });

    it("a pause set on one instance is seen by the other, and resume clears it", async () => {
      const appRoot = tempRoot();
      const a = await driver.open({ appRoot });
      const b = await driver.open({ appRoot });
      await a.scheduleTicks.setPaused("digest", true);
      expect([...(await b.scheduleTicks.paused())]).toEqual(["digest"]);
      await b.scheduleTicks.setPaused("digest", false);
      expect([...(await a.scheduleTicks.paused())]).toEqual([]);
    });

    it("a recorded tick's delivery counts the reply pieces of its inbox row only", async () => {
      const db = await driver.open({ appRoot: tempRoot() });
      const first = await db.inbox.accept({
        gateway: "telegram",
        dedupKey: "schedule:d:1",
        thread: "42",
        text: "p",
        origin: { gateway: "telegram", thread: "42" },
      });
      const other = await db.inbox.accept({
        gateway: "telegram",
        dedupKey: "x",
        thread: "42",
        text: "p",
        origin: { gateway: "telegram", thread: "42" },
      });
      if (!first.accepted || !other.accepted) throw new Error("not accepted");
      await db.outbox.enqueue([
        {
          gateway: "telegram",
          thread: "42",
          idemKey: `telegram:in${first.id}:0`,
          kind: "text",
          payload: { text: "a" },
        },
        {
          gateway: "telegram",
          thread: "42",
          idemKey: `telegram:in${first.id}:1`,
          kind: "text",
          payload: { text: "b" },
        },
        {
          gateway: "telegram",
          thread: "42",
          idemKey: `telegram:in${other.id}:0`,
          kind: "text",
          payload: { text: "c" },
        },
      ]);
      expect(await db.scheduleTicks.delivery("telegram", first.id)).toEqual({
        inboxStatus: "queued",
        pending: 2,
        sent: 0,
        dead: 0,
        lastError: null,
        firstText: "a",
      });
    });
  });
});
