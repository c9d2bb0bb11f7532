import { describe, expect, it } from "vitest";
import { clock, tempRoot, eachDriver } from "./helpers.js";

eachDriver((driver) => {
  const piece = (thread: string, key: string, text: string) => ({
    gateway: "telegram",
    thread,
    idemKey: key,
    kind: "text" as const,
    payload: { text },
  });

  describe("outbox (durable replies)", () => {
    it("keeps one row per idempotency key, so writing a piece twice sends it once", async () => {
      const db = await driver.open();
      expect(await db.outbox.enqueue([piece("t1", "k1", "a"), piece("t1", "k2", "b")])).toHaveLength(2);
      expect(await db.outbox.enqueue([piece("t1", "k1", "a again")])).toEqual([]);
      expect((await db.outbox.list("telegram", "t1")).map((r) => r.payload)).toEqual([
        { text: "a" },
        { text: "b" },
      ]);
    });

    it("gives only the oldest pending piece of each thread, so a retried piece is never overtaken", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const [a, , c] = await db.outbox.enqueue([
        piece("t1", "a", "1"),
        piece("t1", "b", "2"),
        piece("t2", "c", "x"),
      ]);
      expect((await db.outbox.due(t.now())).map((r) => r.idemKey)).toEqual(["a", "c"]);
      await db.outbox.markRetry(a as number, t.now() + 1000, "429");
      // t1's first piece waits for its retry; its second piece must not go first.
      expect((await db.outbox.due(t.now())).map((r) => r.idemKey)).toEqual(["c"]);
      expect(await db.outbox.nextDueAt()).toBe(t.now());
      await db.outbox.markSent(c as number, "m-9");
      expect(await db.outbox.nextDueAt()).toBe(t.now() + 1000);
      t.advance(1000);
      expect((await db.outbox.due(t.now())).map((r) => [r.idemKey, r.attempts, r.lastError])).toEqual([
        ["a", 1, "429"],
      ]);
      expect(await db.outbox.markSent(a as number, "m-1")).toBe(true);
      expect(await db.outbox.markSent(a as number, "m-1")).toBe(false);
      expect((await db.outbox.due(t.now())).map((r) => r.idemKey)).toEqual(["b"]);
      expect(await db.outbox.get(a as number)).toMatchObject({
        status: "sent",
        platformId: "m-1",
        attempts: 2,
      });
    });

    it("a sent piece the platform later reports undelivered becomes dead with the reason; only that gateway's and thread's", async () => {
      const db = await driver.open();
      const [a, b] = await db.outbox.enqueue([piece("t1", "a", "1"), piece("t2", "b", "2")]);
      await db.outbox.markSent(a as number, "wamid.1");
      await db.outbox.markSent(b as number, "wamid.1");
      expect(await db.outbox.markUndelivered("telegram", "t1", "wamid.unknown", "131047")).toBe(false);
      expect(await db.outbox.markUndelivered("other", "t1", "wamid.1", "131047")).toBe(false);
      expect(await db.outbox.markUndelivered("telegram", "t1", "wamid.1", "131047 outside the window")).toBe(
        true,
      );
      // Reported twice (Meta redelivers the status): the second changes nothing.
      expect(await db.outbox.markUndelivered("telegram", "t1", "wamid.1", "again")).toBe(false);
      expect(await db.outbox.get(a as number)).toMatchObject({
        status: "dead",
        lastError: "131047 outside the window",
      });
      expect(await db.outbox.get(b as number)).toMatchObject({ status: "sent" });
    });

    it("a sent piece reported undelivered for a passing reason is pending again, until its attempts run out", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const [a] = await db.outbox.enqueue([piece("t1", "a", "1")]);
      await db.outbox.markSent(a as number, "wamid.1");
      const retry = { at: t.now() + 1000, maxAttempts: 2 };
      expect(await db.outbox.markUndelivered("telegram", "t1", "wamid.1", "130429 rate limit", retry)).toBe(
        true,
      );
      expect(await db.outbox.get(a as number)).toMatchObject({
        status: "pending",
        nextAttemptAt: t.now() + 1000,
        platformId: null,
        lastError: "130429 rate limit",
      });
      expect(await db.outbox.due(t.now())).toEqual([]);
      t.advance(1000);
      expect((await db.outbox.due(t.now())).map((r) => r.idemKey)).toEqual(["a"]);
      await db.outbox.markSent(a as number, "wamid.2");
      // Two attempts made: a second report ends it.
      expect(await db.outbox.markUndelivered("telegram", "t1", "wamid.2", "130429 again", retry)).toBe(true);
      expect(await db.outbox.get(a as number)).toMatchObject({ status: "dead", lastError: "130429 again" });
    });

    it("a dead piece stops blocking its thread and is kept with its error until pruned", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const [a] = await db.outbox.enqueue([piece("t1", "a", "1"), piece("t1", "b", "2")]);
      await db.outbox.markDead(a as number, "403 forbidden");
      expect((await db.outbox.due(t.now())).map((r) => r.idemKey)).toEqual(["b"]);
      expect(await db.outbox.countByStatus("dead")).toBe(1);
      t.advance(10);
      expect(await db.outbox.prune(t.now())).toBe(1);
      expect((await db.outbox.list("telegram", "t1")).map((r) => r.idemKey)).toEqual(["b"]);
    });

    it("commits with the caller's other writes in one transaction, or not at all", async () => {
      const db = await driver.open();
      await expect(
        db.transaction(async () => {
          await db.outbox.enqueue([piece("t1", "x", "1")]);
          throw new Error("crash before commit");
        }),
      ).rejects.toThrow("crash before commit");
      expect(await db.outbox.list("telegram", "t1")).toEqual([]);
      await db.transaction(() => db.outbox.enqueue([piece("t1", "x", "1")]));
      expect(await db.outbox.list("telegram", "t1")).toHaveLength(1);
    });
  });

  describe("per-gateway state and seen tokens", () => {
    it("stores JSON state per gateway and key, surviving a reopen", async () => {
      const root = tempRoot();
      const db = await driver.open({ appRoot: root });
      await db.gatewayState.set("telegram", "offset", 41);
      await db.gatewayState.set("telegram", "offset", 42);
      await db.gatewayState.set("discord", "session", { id: "s", seq: 9 });
      db.close();
      const again = await driver.open({ appRoot: root });
      expect(await again.gatewayState.get("telegram", "offset")).toBe(42);
      expect(await again.gatewayState.get("discord", "session")).toEqual({ id: "s", seq: 9 });
      await again.gatewayState.delete("telegram", "offset");
      expect(await again.gatewayState.get("telegram", "offset")).toBeUndefined();
    });

    it("a token is claimed once until it expires, and the first claim's value is returned", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      expect(await db.seenTokens.claim("http:ops", "sig-1", "req-1", t.now() + 600_000)).toEqual({
        claimed: true,
      });
      expect(await db.seenTokens.claim("http:ops", "sig-1", "req-2", t.now() + 600_000)).toEqual({
        claimed: false,
        value: "req-1",
      });
      expect((await db.seenTokens.claim("http:other", "sig-1", "req-2", t.now() + 600_000)).claimed).toBe(
        true,
      );
      t.advance(600_001);
      expect(await db.seenTokens.claim("http:ops", "sig-1", "req-3", t.now() + 600_000)).toEqual({
        claimed: true,
      });
      expect(await db.seenTokens.prune(t.now() + 600_001)).toBe(2);
    });
  });
});
