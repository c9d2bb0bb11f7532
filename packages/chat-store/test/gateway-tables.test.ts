import type { RunOrigin } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { clock, eachDriver, tempRoot } from "./helpers.js";

eachDriver((driver) => {
  const origin: RunOrigin = { gateway: "telegram", thread: "chat:1", meta: { chatId: 1, replyTo: 7 } };

  describe("inbox (durable inbound queue)", () => {
    it("accepts a message once per (gateway, dedupKey); repeats are duplicates", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const first = await db.inbox.accept({
        gateway: "telegram",
        dedupKey: "update:1",
        thread: "chat:1",
        text: "hi",
        origin,
      });
      expect(first).toEqual({ accepted: true, id: expect.any(Number) });
      for (let i = 0; i < 5; i++) {
        expect(
          await db.inbox.accept({
            gateway: "telegram",
            dedupKey: "update:1",
            thread: "chat:1",
            text: "hi again",
            origin,
          }),
        ).toEqual({ accepted: false, duplicate: true });
      }
      // Same key on another gateway is a different message.
      expect(
        (await db.inbox.accept({ gateway: "slack", dedupKey: "update:1", thread: "c", text: "x", origin }))
          .accepted,
      ).toBe(true);
      const record = (await db.inbox.get((first as { id: number }).id))!;
      expect(record).toMatchObject({
        status: "queued",
        text: "hi",
        origin,
        receivedAt: t.now(),
        startedAt: null,
      });
      expect(await db.inbox.countQueued("telegram", "chat:1")).toBe(1);
    });

    it("dedups across two connections to the same database (two processes or instances)", async () => {
      const root = tempRoot();
      const a = await driver.open({ appRoot: root });
      const b = await driver.open({ appRoot: root });
      const input = {
        gateway: "github",
        dedupKey: "delivery-9",
        thread: "repo:o/r:issue:1",
        text: "t",
        origin,
      };
      const results = [await a.inbox.accept(input), await b.inbox.accept(input), await a.inbox.accept(input)];
      expect(results.filter((r) => r.accepted)).toHaveLength(1);
    });

    it("moves queued -> running -> done, once each", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const r = await db.inbox.accept({ gateway: "g", dedupKey: "1", thread: "th", text: "a", origin });
      const id = (r as { id: number }).id;
      t.advance(5);
      expect(await db.inbox.markRunning(id)).toBe(true);
      expect(await db.inbox.markRunning(id)).toBe(false);
      expect(await db.inbox.get(id)).toMatchObject({ status: "running", startedAt: t.now() });
      t.advance(5);
      expect(await db.inbox.markDone(id, "done")).toBe(true);
      expect(await db.inbox.markDone(id, "failed")).toBe(false);
      expect(await db.inbox.get(id)).toMatchObject({ status: "done", finishedAt: t.now() });
      await expect(db.inbox.markDone(id, "bogus" as "done")).rejects.toThrow(/status must be/);
    });

    it("unfinished lists queued and running messages oldest first; queued/countQueued are per thread", async () => {
      const db = await driver.open();
      const ids: number[] = [];
      for (const [i, k] of ["a", "b", "c", "d"].entries())
        ids.push(
          (
            (await db.inbox.accept({
              gateway: "g",
              dedupKey: k,
              thread: i < 3 ? "t1" : "t2",
              text: k,
              origin,
            })) as {
              id: number;
            }
          ).id,
        );
      await db.inbox.markRunning(ids[0]!);
      await db.inbox.markDone(ids[1]!, "rejected");
      expect((await db.inbox.unfinished()).map((r) => r.text)).toEqual(["a", "c", "d"]);
      expect((await db.inbox.queued("g", "t1")).map((r) => r.text)).toEqual(["c"]);
      expect(await db.inbox.countQueued("g", "t1")).toBe(1);
      expect(await db.inbox.countQueued("g", "t2")).toBe(1);
      expect(await db.inbox.countQueued("other", "t1")).toBe(0);
    });

    it("unfinishedOf waits for a commit of that thread in flight and leaves out what it finished", async () => {
      const db = await driver.open();
      const accept = async (thread: string, text: string) =>
        ((await db.inbox.accept({ gateway: "g", dedupKey: text, thread, text, origin })) as { id: number })
          .id;
      const a = await accept("t1", "a");
      await accept("t1", "b");
      await accept("t2", "c");
      await db.inbox.markRunning(a);
      expect((await db.inbox.unfinishedOf("g", "t1")).map((r) => [r.text, r.status])).toEqual([
        ["a", "running"],
        ["b", "queued"],
      ]);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let marked!: () => void;
      const markedDone = new Promise<void>((resolve) => (marked = resolve));
      // Another instance's turn commits: its record is marked done, the transaction not yet over.
      const committing = db.transaction(async () => {
        await db.inbox.markDone(a, "done");
        marked();
        await held;
      });
      await markedDone;
      const read = db.inbox.unfinishedOf("g", "t1");
      const first = await Promise.race([
        read.then(() => "read"),
        new Promise((r) => setTimeout(() => r("waiting"), 300)),
      ]);
      expect(first).toBe("waiting");
      release();
      await committing;
      expect((await read).map((r) => r.text)).toEqual(["b"]);
    });

    it("prune forgets only finished messages older than the cutoff", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      const old = (await db.inbox.accept({
        gateway: "g",
        dedupKey: "old",
        thread: "t",
        text: "x",
        origin,
      })) as {
        id: number;
      };
      await db.inbox.accept({ gateway: "g", dedupKey: "old-queued", thread: "t", text: "x", origin });
      await db.inbox.markDone(old.id, "done");
      t.advance(1000);
      const recent = (await db.inbox.accept({
        gateway: "g",
        dedupKey: "new",
        thread: "t",
        text: "x",
        origin,
      })) as {
        id: number;
      };
      await db.inbox.markDone(recent.id, "done");
      expect(await db.inbox.prune(t.now())).toBe(1);
      expect(await db.inbox.get(old.id)).toBeUndefined();
      expect(await db.inbox.get(recent.id)).toBeDefined();
      expect((await db.inbox.unfinished()).map((r) => r.dedupKey)).toEqual(["old-queued"]);
    });
  });

  describe("interaction requests", () => {
    const request = {
      requestId: "req-1",
      threadId: "thread-1",
      gateway: "slack",
      thread: "C1:ts1",
      allowedDecisions: ["approve", "reject"] as ("approve" | "reject")[],
      prompt: "Run rm -rf /tmp/x?",
      createdAt: 1000,
    };

    it("saves, gets and finds the open request of a thread", async () => {
      const db = await driver.open();
      await db.interactions.save(request);
      expect(await db.interactions.get("req-1")).toEqual({
        ...request,
        status: "open",
        decision: null,
        resolvedAt: null,
        expiresAt: null,
        participant: null,
      });
      expect((await db.interactions.getOpenByThread("slack", "C1:ts1"))?.requestId).toBe("req-1");
      expect(await db.interactions.getOpenByThread("slack", "other")).toBeUndefined();
      await db.interactions.save({ ...request, requestId: "req-2", createdAt: 2000 });
      expect((await db.interactions.getOpenByThread("slack", "C1:ts1"))?.requestId).toBe("req-2");
    });

    it("resolve succeeds once and records the decision; the request is then no longer open", async () => {
      const t = clock();
      const db = await driver.open({ now: t.now });
      await db.interactions.save(request);
      expect(await db.interactions.resolve("req-1", { decision: "approve", decidedBy: "slack:U1" })).toBe(
        true,
      );
      expect(await db.interactions.resolve("req-1", "reject")).toBe(false);
      expect(await db.interactions.get("req-1")).toMatchObject({
        status: "resolved",
        decision: { decision: "approve", decidedBy: "slack:U1" },
        resolvedAt: t.now(),
      });
      expect(await db.interactions.getOpenByThread("slack", "C1:ts1")).toBeUndefined();
      expect(await db.interactions.resolve("missing", "approve")).toBe(false);
    });

    it("saving an existing request again keeps its resolution", async () => {
      const db = await driver.open();
      await db.interactions.save(request);
      await db.interactions.resolve("req-1", "reject");
      await db.interactions.save({ ...request, prompt: "changed" });
      expect(await db.interactions.get("req-1")).toMatchObject({
        prompt: "changed",
        status: "resolved",
        decision: "reject",
      });
    });
  });
});
