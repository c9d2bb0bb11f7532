// Inbox paths the turn and burst tests do not take, found by a mutation run of inbox.ts (#45): on
// PostgreSQL an accept and a running mark inside a transaction (not grouped), a turn's end that only
// starts the next record, a queued read that takes no row locks; on both databases a record without
// attachments read back without the key.
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { eachDriver, postgresDriver } from "./helpers.js";
import { withOwnConnection } from "./pg-statements.js";

const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const message = (dedupKey: string) => ({ gateway: "g", dedupKey, thread: "t", text: dedupKey, origin });

async function accepted(db: ChatDb, dedupKey: string): Promise<number> {
  return ((await db.inbox.accept(message(dedupKey))) as { id: number }).id;
}

describe.skipIf(postgresMissing)("[postgres] the inbox", () => {
  it("inside a transaction answers an accept with its id, a repeat as a duplicate, and a running mark once", async () => {
    const db = await postgresDriver.open();
    await db.transaction(async () => {
      const first = await db.inbox.accept(message("m1"));
      expect(first).toEqual({ accepted: true, id: expect.any(Number) });
      expect(await db.inbox.accept(message("m1"))).toEqual({ accepted: false, duplicate: true });
      const id = (first as { id: number }).id;
      expect(await db.inbox.markRunning(id)).toBe(true);
      expect(await db.inbox.markRunning(id)).toBe(false);
    });
    const [rec] = await db.inbox.unfinished();
    expect(rec).toMatchObject({ dedupKey: "m1", status: "running" });
  });

  it("moves the thread's next record to running with a turn's end that has no reply, lock or carried write", async () => {
    const db = await postgresDriver.open();
    const first = await accepted(db, "m1");
    const next = await accepted(db, "m2");
    await db.inbox.markRunning(first);
    expect(await db.inbox.finish(first, "done", [], { running: next })).toBe(true);
    expect((await db.inbox.get(first))?.status).toBe("done");
    expect((await db.inbox.get(next))?.status).toBe("running");
  });

  it("reads a thread's queued records without waiting for a record another transaction holds locked", async () => {
    await withOwnConnection(async (db, client) => {
      const id = await accepted(db, "m1");
      await client.query("BEGIN");
      await client.query('SELECT id FROM "inbox" WHERE id = $1 FOR UPDATE', [id]);
      try {
        // Locking rows (FOR UPDATE) it would wait here until that transaction ends.
        expect((await db.inbox.queued("g", "t")).map((r) => r.id)).toEqual([id]);
      } finally {
        await client.query("ROLLBACK");
      }
    });
  });
});

eachDriver((driver) => {
  describe("a record accepted without attachments", () => {
    it("is read back without an attachments key", async () => {
      const db = await driver.open();
      const id = await accepted(db, "m1");
      const rec = await db.inbox.get(id);
      expect(rec).toMatchObject({ id, dedupKey: "m1" });
      expect(rec).not.toHaveProperty("attachments");
    });
  });
});
