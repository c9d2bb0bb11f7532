// Memory.append's `within`: the caller's writes (a turn's reply queued, its inbox record marked
// done) are part of the turn's transaction even when they await first: they have landed when
// append resolves, and when they fail the turn's messages are rolled back with them.
import type { Message } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { eachDriver } from "./helpers.js";

const A = { userId: "alice", conversationId: "c1" };
const TURN: Message[] = [
  { role: "user", content: "question" },
  { role: "assistant", content: "answer" },
];
const tick = () => new Promise((r) => setTimeout(r, 10));
const reply = {
  gateway: "slack",
  thread: "C1:1",
  idemKey: "k1",
  kind: "text" as const,
  payload: { text: "answer" },
};

/** The turn's inbound message recorded in the inbox; its record id. */
async function recorded(db: ChatDb): Promise<number> {
  const accepted = await db.inbox.accept({
    gateway: "slack",
    dedupKey: "m1",
    thread: "C1:1",
    text: "question",
    origin: { gateway: "slack", thread: "C1:1", meta: {} },
  });
  return (accepted as { id: number }).id;
}

eachDriver((driver) => {
  describe("Memory.append with within", () => {
    it("has the reply queued by within (after an await) when append resolves", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false });
      await memory.append(A, TURN, async () => {
        await tick();
        await db.outbox.enqueue([reply]);
      });
      expect((await db.outbox.browse({ statuses: ["pending"] })).map((r) => r.idemKey)).toEqual(["k1"]);
      expect(await memory.count(A)).toBe(2);
    });

    it("rejects and keeps none of the turn's messages when within fails after an await", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false });
      await expect(
        memory.append(A, TURN, async () => {
          await db.outbox.enqueue([reply]);
          await tick();
          throw new Error("inbox record gone");
        }),
      ).rejects.toThrow("inbox record gone");
      expect(await memory.count(A)).toBe(0);
      expect(await db.outbox.browse({ statuses: ["pending"] })).toEqual([]);
    });

    it("a turn ended with inbox.finish keeps its messages, its record done and its reply, together", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false });
      const id = await recorded(db);
      let moved: boolean | undefined;
      await memory.append(A, TURN, async () => {
        moved = await db.inbox.finish(id, "done", [
          reply,
          { ...reply, idemKey: "k2", payload: { text: "more" } },
        ]);
      });
      expect(moved).toBe(true);
      expect(await memory.load(A)).toEqual(TURN);
      expect((await db.inbox.get(id))?.status).toBe("done");
      const queued = await db.outbox.browse({ statuses: ["pending"] });
      expect(queued.map((r) => [r.idemKey, r.payload])).toEqual([
        ["k1", { text: "answer" }],
        ["k2", { text: "more" }],
      ]);
      // A record already finished is not moved again; a piece already queued stays one row.
      expect(await db.inbox.finish(id, "failed", [reply])).toBe(false);
      expect((await db.inbox.get(id))?.status).toBe("done");
      expect(await db.outbox.browse({ statuses: ["pending"] })).toHaveLength(2);
    });

    it("a turn whose within fails after inbox.finish keeps neither its messages, the record's end nor its reply", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false });
      const id = await recorded(db);
      await expect(
        memory.append(A, TURN, async () => {
          await db.inbox.finish(id, "done", [reply]);
          throw new Error("fenced");
        }),
      ).rejects.toThrow("fenced");
      expect(await memory.count(A)).toBe(0);
      expect((await db.inbox.get(id))?.status).toBe("queued");
      expect(await db.outbox.browse({ statuses: ["pending"] })).toEqual([]);
    });

    it("a read inside the turn after its messages were appended sees them", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false });
      let seen = -1;
      await memory.append(A, TURN, async () => {
        seen = await memory.count(A);
      });
      expect(seen).toBe(2);
    });

    it("runs within in a transaction of its own when there are no messages, rolled back on failure", async () => {
      const db = await driver.open();
      const memory = db.createMemory({ canSummarize: false });
      await expect(
        memory.append(A, [], async () => {
          await db.outbox.enqueue([reply]);
          await tick();
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      expect(await db.outbox.browse({ statuses: ["pending"] })).toEqual([]);
    });
  });
});
