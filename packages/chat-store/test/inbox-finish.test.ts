// Inbox.finish, a turn's end: on PostgreSQL the writes the turn's transaction carries (its messages)
// go in the statement that ends the record, with or without a reply or a lock fence; a lock fence
// is PostgreSQL's (its advisory locks), refused on SQLite rather than skipped. Written from the survivors of
// `pnpm mutate chat-store src/inbox.ts:196-239` (#45.5 follow-up).
import type { Message, RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { postgresDriver, sqliteDriver } from "./helpers.js";
import { statementsOf } from "./pg-statements.js";

const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const A = { userId: "u", conversationId: "c" };
const TURN: Message[] = [
  { role: "user", content: "q" },
  { role: "assistant", content: "a" },
];

async function running(db: ChatDb): Promise<number> {
  const accepted = await db.inbox.accept({ gateway: "g", dedupKey: "m", thread: "t", text: "q", origin });
  const id = (accepted as { id: number }).id;
  await db.inbox.markRunning(id);
  return id;
}

describe.skipIf(postgresMissing)("[postgres] a turn's end without a reply or a lock", () => {
  it("keeps the turn's messages: they go in the one statement that ends its record", async () => {
    const db = await postgresDriver.open();
    const id = await running(db);
    const memory = db.createMemory({ canSummarize: false });
    let moved: boolean | undefined;
    const sent = await statementsOf(() =>
      memory.append(A, TURN, async () => {
        moved = await db.inbox.finish(id, "done", []);
      }),
    );
    expect(moved).toBe(true);
    expect(sent.map((s) => s.text.trim().split(/\s+/)[0]!.toLowerCase())).toEqual([
      "begin",
      "with",
      "commit",
    ]);
    expect(await memory.load(A)).toEqual(TURN);
    expect((await db.inbox.get(id))?.status).toBe("done");
  });
});

describe.skipIf(postgresMissing)("[postgres] a record ended with its reply outside a transaction", () => {
  it("queues the reply's pieces with the record's end, in one statement", async () => {
    const db = await postgresDriver.open();
    const id = await running(db);
    const reply = [
      { gateway: "g", thread: "t", idemKey: "k1", kind: "text" as const, payload: { text: "a" } },
      { gateway: "g", thread: "t", idemKey: "k2", kind: "text" as const, payload: { text: "b" } },
    ];
    let moved: boolean | undefined;
    const sent = await statementsOf(async () => {
      moved = await db.inbox.finish(id, "done", reply);
    });
    expect(moved).toBe(true);
    expect(sent.map((s) => s.text.trim().split(/\s+/)[0]!.toLowerCase())).toEqual(["with"]);
    expect((await db.inbox.get(id))?.status).toBe("done");
    expect((await db.outbox.browse({ statuses: ["pending"] })).map((r) => r.idemKey).sort()).toEqual([
      "k1",
      "k2",
    ]);
  });
});

describe("[sqlite] a lock fence", () => {
  it("is refused before anything is written: the advisory lock manager is PostgreSQL's, a fence skipped would not guard the turn", async () => {
    const db = await sqliteDriver.open();
    const id = await running(db);
    const reply = [
      { gateway: "g", thread: "t", idemKey: "k", kind: "text" as const, payload: { text: "a" } },
    ];
    await expect(
      db.inbox.finish(id, "done", reply, { lock: { pid: 1, key: "1", incarnation: "1" } }),
    ).rejects.toThrow(
      new TypeError("inbox.finish: a lock fence is checked in the server's lock manager: PostgreSQL only"),
    );
    expect((await db.inbox.get(id))?.status).toBe("running");
    expect(await db.outbox.browse({ statuses: ["pending"] })).toEqual([]);
  });
});

describe.skipIf(postgresMissing)("[postgres] a turn's end that starts the thread's next record", () => {
  it("moves the next record to running in the statement that ends this one (a queued turn's own mark was a statement each)", async () => {
    const db = await postgresDriver.open();
    const id = await running(db);
    const next = await db.inbox.accept({ gateway: "g", dedupKey: "m2", thread: "t", text: "q2", origin });
    const nextId = (next as { id: number }).id;
    const reply = [
      { gateway: "g", thread: "t", idemKey: "k1", kind: "text" as const, payload: { text: "a" } },
    ];
    const sent = await statementsOf(async () => {
      await db.inbox.finish(id, "done", reply, { running: nextId });
    });
    expect(sent.map((s) => s.text.trim().split(/\s+/)[0]!.toLowerCase())).toEqual(["with"]);
    expect((await db.inbox.get(id))?.status).toBe("done");
    expect((await db.inbox.get(nextId))?.status).toBe("running");
    // Its turn's own mark finds it taken (no second start).
    expect(await db.inbox.markRunning(nextId)).toBe(false);
  });
});

describe("[sqlite] a turn's end that starts the thread's next record", () => {
  it("moves the next record to running with it", async () => {
    const db = await sqliteDriver.open();
    const id = await running(db);
    const next = await db.inbox.accept({ gateway: "g", dedupKey: "m2", thread: "t", text: "q2", origin });
    const nextId = (next as { id: number }).id;
    await db.inbox.finish(id, "done", [], { running: nextId });
    expect((await db.inbox.get(id))?.status).toBe("done");
    expect((await db.inbox.get(nextId))?.status).toBe("running");
  });
});
