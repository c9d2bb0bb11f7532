// Memory.append's `within`: the caller's writes (a turn's reply queued, its inbox record marked
// done) are part of the turn's transaction even when they await first: they have landed when
// append resolves, and when they fail the turn's messages are rolled back with them.
import type { Message } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
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
