// Finished gateway records are pruned after their documented retention; unfinished ones never are.
import { describe, expect, it } from "vitest";
import { pino } from "pino";
import { ChatDb } from "@agentsvc/chat-store";
import { DEFAULT_RETENTION } from "../src/index.js";
import { pruneOnce } from "../src/retention.js";
import { removeDir, tempDir } from "./session-harness.js";

describe("retention", () => {
  it("deletes finished inbox records, sent outbox pieces and expired tokens past retention, and keeps the rest", async () => {
    const dir = tempDir();
    let now = Date.UTC(2026, 0, 1);
    const db = ChatDb.open({ appRoot: dir, path: "r.db", now: () => now });
    try {
      const origin = { gateway: "g", thread: "t" };
      const done = await db.inbox.accept({ gateway: "g", dedupKey: "a", thread: "t", text: "x", origin });
      const open = await db.inbox.accept({ gateway: "g", dedupKey: "b", thread: "t", text: "y", origin });
      if (!done.accepted || !open.accepted) throw new Error("not accepted");
      await db.inbox.markDone(done.id, "done");
      const [sent, pending] = await db.outbox.enqueue([
        { gateway: "g", thread: "t", idemKey: "k1", kind: "text", payload: { text: "1" } },
        { gateway: "g", thread: "u", idemKey: "k2", kind: "text", payload: { text: "2" } },
      ]);
      await db.outbox.markSent(sent as number);
      await db.seenTokens.claim("g", "tok", "v", now + 1000);
      now += DEFAULT_RETENTION.inboxMs + 1;
      const pruned = await pruneOnce(db, DEFAULT_RETENTION, pino({ level: "silent" }), now);
      // Stored files follow their own retention (30 days by default): none is due yet.
      expect(pruned).toEqual({ inbox: 1, outbox: 1, tokens: 1, blobs: 0 });
      expect((await db.inbox.unfinished()).map((r) => r.id)).toEqual([open.id]);
      expect((await db.outbox.get(pending as number))?.status).toBe("pending");
      // The pruned dedup key is forgotten: a redelivery that late is a new message.
      expect(
        (await db.inbox.accept({ gateway: "g", dedupKey: "a", thread: "t", text: "x", origin })).accepted,
      ).toBe(true);
    } finally {
      db.close();
      removeDir(dir);
    }
  });
});
