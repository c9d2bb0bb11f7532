// Sender access tables on both dialects: pairing codes, approvals seen by a second instance, and
// rate-limit windows that admit exactly the limit under concurrent hits from two instances.
import { describe, expect, it } from "vitest";
import { eachDriver, tempRoot } from "./helpers.js";

const HOUR = 3_600_000;

eachDriver((driver) => {
  describe("sender access", () => {
    it("a code approved on one instance makes its sender approved on another; an approved code cannot be denied", async () => {
      const appRoot = tempRoot();
      const a = await driver.open({ appRoot });
      const b = await driver.open({ appRoot });
      const now = Date.now();
      expect(
        await a.senderAccess.addCode({
          code: "ABCD2345",
          gateway: "telegram",
          sender: "42",
          thread: "42",
          displayName: "Ann",
          createdAt: now,
          expiresAt: now + HOUR,
        }),
      ).toBe(true);
      expect(await b.senderAccess.isApproved("telegram", "42")).toBe(false);
      expect((await b.senderAccess.pendingCodes(now)).map((c) => c.code)).toEqual(["ABCD2345"]);
      expect(await b.senderAccess.approve("abcd2345", now)).toMatchObject({
        sender: "42",
        status: "approved",
      });
      expect(await a.senderAccess.isApproved("telegram", "42")).toBe(true);
      expect(await a.senderAccess.deny("ABCD2345", now)).toBeUndefined();
      expect(await a.senderAccess.pendingCodes(now)).toEqual([]);
      expect(await a.senderAccess.revoke("telegram", "42")).toBe(true);
      expect(await b.senderAccess.isApproved("telegram", "42")).toBe(false);
      expect(await b.senderAccess.revoke("telegram", "42")).toBe(false);
    });

    it("an expired code can be neither approved nor found as the sender's current code", async () => {
      const db = await driver.open();
      const now = Date.now();
      await db.senderAccess.addCode({
        code: "EXP12345",
        gateway: "slack",
        sender: "U1",
        thread: "D1",
        displayName: null,
        createdAt: now - 2 * HOUR,
        expiresAt: now - HOUR,
      });
      expect(await db.senderAccess.currentCode("slack", "U1", now)).toBeUndefined();
      expect(await db.senderAccess.approve("EXP12345", now)).toBeUndefined();
      expect(await db.senderAccess.isApproved("slack", "U1")).toBe(false);
      expect(
        await db.senderAccess.addCode({
          code: "EXP12345",
          gateway: "slack",
          sender: "U2",
          thread: "D2",
          displayName: null,
          createdAt: now,
          expiresAt: now + HOUR,
        }),
      ).toBe(false);
    });

    it("a window admits exactly its count under 40 concurrent hits from two instances, and starts again once it has passed", async () => {
      const appRoot = tempRoot();
      const a = await driver.open({ appRoot });
      const b = await driver.open({ appRoot });
      const now = Date.now();
      const hits = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a : b).transaction(() =>
            (i % 2 ? a : b).senderAccess.hit("sender:sms:+1555", 60_000, now),
          ),
        ),
      );
      expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      expect(new Set(hits.map((h) => h.windowStart))).toEqual(new Set([now]));
      expect(await a.senderAccess.hit("sender:sms:+1555", 60_000, now + 59_999)).toEqual({
        count: 41,
        windowStart: now,
      });
      expect(await b.senderAccess.hit("sender:sms:+1555", 60_000, now + 60_000)).toEqual({
        count: 1,
        windowStart: now + 60_000,
      });
    });
  });
});
