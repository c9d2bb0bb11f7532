// What an operator does with dead letters (`agentsvc outbox`): list them with their reason, put one
// (or all) back in the queue, or drop one. On both drivers.
import { describe, expect, it } from "vitest";
import { clock, eachDriver } from "./helpers.js";

eachDriver((driver) => {
  const piece = (gateway: string, thread: string, key: string) => ({
    gateway,
    thread,
    idemKey: key,
    kind: "text" as const,
    payload: { text: key },
  });

  describe("outbox: dead letters for the operator", () => {
    it("browses pending and dead pieces (not sent ones), by gateway and by status, oldest first", async () => {
      const db = await driver.open();
      const [a, b, c, d] = await db.outbox.enqueue([
        piece("slack", "t1", "a"),
        piece("slack", "t2", "b"),
        piece("discord", "t3", "c"),
        piece("slack", "t4", "d"),
      ]);
      await db.outbox.markSent(a as number, "m1");
      await db.outbox.markDead(b as number, "403 not_in_channel");
      await db.outbox.markDead(c as number, "50007 cannot send");
      const keys = (rows: { idemKey: string }[]) => rows.map((r) => r.idemKey);
      expect(keys(await db.outbox.browse())).toEqual(["b", "c", "d"]);
      expect(keys(await db.outbox.browse({ gateway: "slack" }))).toEqual(["b", "d"]);
      expect(keys(await db.outbox.browse({ statuses: ["dead"] }))).toEqual(["b", "c"]);
      const [dead] = await db.outbox.browse({ gateway: "slack", statuses: ["dead"] });
      expect(dead).toMatchObject({ id: b, status: "dead", attempts: 1, lastError: "403 not_in_channel" });
      expect(d).toBeTypeOf("number");
      const counts = await db.outbox.countsByGateway();
      expect(
        counts.sort((x, y) => `${x.gateway}${x.status}`.localeCompare(`${y.gateway}${y.status}`)),
      ).toEqual([
        { gateway: "discord", status: "dead", count: 1 },
        { gateway: "slack", status: "dead", count: 1 },
        { gateway: "slack", status: "pending", count: 1 },
      ]);
    });

    it("requeues a dead piece as new: pending, due now, attempts from zero; anything else is left alone", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const [a, b] = await db.outbox.enqueue([piece("slack", "t1", "a"), piece("slack", "t1", "b")]);
      await db.outbox.markSent(a as number, "wamid.1");
      await db.outbox.markUndelivered("slack", "t1", "wamid.1", "131047 outside the window");
      t.advance(5000);
      expect(await db.outbox.requeue(a as number)).toBe(true);
      expect(await db.outbox.get(a as number)).toMatchObject({
        status: "pending",
        attempts: 0,
        nextAttemptAt: t.now(),
        finishedAt: null,
        platformId: null,
        lastError: "131047 outside the window",
      });
      // Oldest first again: the requeued piece goes before the later one of its thread.
      expect((await db.outbox.due(t.now())).map((r) => r.idemKey)).toEqual(["a"]);
      expect(await db.outbox.requeue(a as number)).toBe(false);
      expect(await db.outbox.requeue(b as number)).toBe(false);
      expect(await db.outbox.requeue(9999)).toBe(false);
    });

    it("requeues every dead piece, or those of one gateway", async () => {
      const db = await driver.open();
      const ids = await db.outbox.enqueue([
        piece("slack", "t1", "a"),
        piece("discord", "t2", "b"),
        piece("slack", "t3", "c"),
      ]);
      for (const id of ids) await db.outbox.markDead(id, "gone");
      expect(await db.outbox.requeueDead({ gateway: "slack" })).toEqual([ids[0], ids[2]]);
      expect(await db.outbox.countByStatus("dead")).toBe(1);
      expect(await db.outbox.requeueDead()).toEqual([ids[1]]);
      expect(await db.outbox.countByStatus("pending")).toBe(3);
    });

    it("drops a dead or pending piece for good, never a sent one", async () => {
      const db = await driver.open();
      const [a, b, c] = await db.outbox.enqueue([
        piece("slack", "t1", "a"),
        piece("slack", "t2", "b"),
        piece("slack", "t3", "c"),
      ]);
      await db.outbox.markDead(a as number, "gone");
      await db.outbox.markSent(c as number, "m");
      expect(await db.outbox.drop(a as number)).toBe(true);
      expect(await db.outbox.drop(b as number)).toBe(true);
      expect(await db.outbox.drop(c as number)).toBe(false);
      expect(await db.outbox.drop(a as number)).toBe(false);
      expect(await db.outbox.get(a as number)).toBeUndefined();
      expect(await db.outbox.get(c as number)).toMatchObject({ status: "sent" });
    });
  });
});
