// Reminders on both dialects: the per-user bound holds, a user ends only their own reminder, and an
// ended reminder leaves the active list but stays readable (its last tick is still recovered).
import { describe, expect, it } from "vitest";
import { eachDriver, tempRoot } from "./helpers.js";

const base = { gateway: "telegram", thread: "42", agent: "assistant", timezone: "Europe/Berlin" };

eachDriver((driver) => {
  describe("reminders", () => {
    it("a user's reminders stop at the bound; another user's and freed places still count", async () => {
      const db = await driver.open({ appRoot: tempRoot() });
      const at = Date.UTC(2026, 11, 3, 8, 0);
      const made = [];
      for (let i = 0; i < 2; i++)
        made.push(await db.reminders.create({ ...base, userId: "u1", text: `r${i}`, at }, 2));
      expect(made.every((r) => "id" in r)).toBe(true);
      expect(await db.reminders.create({ ...base, userId: "u1", text: "r3", at }, 2)).toEqual({ full: 2 });
      expect(
        await db.reminders.create({ ...base, userId: "u2", text: "other", cron: "0 9 * * *" }, 2),
      ).toMatchObject({ userId: "u2", cron: "0 9 * * *", at: null });
      const first = made[0] as { id: number };
      expect(await db.reminders.end(first.id, "cancelled", { gateway: "telegram", userId: "u1" })).toBe(true);
      expect(
        await db.reminders.create({ ...base, userId: "u1", text: "r3", at, meta: { m: 1 } }, 2),
      ).toMatchObject({
        text: "r3",
        meta: { m: 1 },
      });
    });

    it("a user cannot end another user's reminder; the operator can, and ended ones leave the active list", async () => {
      const db = await driver.open({ appRoot: tempRoot() });
      const r = (await db.reminders.create({ ...base, userId: "u1", text: "call mum", at: 1 }, 20)) as {
        id: number;
      };
      expect(await db.reminders.end(r.id, "cancelled", { gateway: "telegram", userId: "u2" })).toBe(false);
      expect(await db.reminders.ofUser("telegram", "42", "u1")).toHaveLength(1);
      expect(await db.reminders.end(r.id, "cancelled")).toBe(true);
      expect(await db.reminders.end(r.id, "cancelled")).toBe(false);
      expect(await db.reminders.active()).toEqual([]);
      expect(await db.reminders.get(r.id)).toMatchObject({ ended: "cancelled", text: "call mum" });
    });
  });
});
