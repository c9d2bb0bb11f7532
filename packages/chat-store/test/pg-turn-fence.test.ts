// A turn's end on PostgreSQL with its fence folded in (lock-fence.ts): the statement that ends the
// inbox record also checks, once that record is locked, that the instance's cluster session still
// holds the thread's advisory lock (the key held exclusively, the session's incarnation alive); as
// the transaction's last write it commits on its own (no BEGIN, no COMMIT). A lock gone with its
// session, taken over, or free commits nothing of the turn (#45 lever 5).
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { DrizzleQueryError } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { fenceError, fencedCount, type HeldLock, MARK } from "../src/lock-fence.js";
import { ownPostgresServer, postgresDriver } from "./helpers.js";
import { useStoreSessions } from "./pg-fence-rig.js";
import { codesOf, holdInboxRow, lockWaiters, unheld } from "./pg-fence-waits.js";
import { statementsOf } from "./pg-statements.js";

// Its waits are found in pg_stat_activity of every database (by the statement's text).
ownPostgresServer();

const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const KEY = "7355608";
const turn = [
  { role: "user" as const, content: "q" },
  { role: "assistant" as const, content: "a" },
];

const verbs = (sent: { text: string }[]) => sent.map((s) => s.text.trim().split(/\s+/)[0]!.toLowerCase());

/** A store in a fresh database, a running record, and two sessions of the test's own (an instance's link, another's). */
const storeSessions = useStoreSessions();

async function rig() {
  const { db, link, other, session } = await storeSessions();
  const accepted = await db.inbox.accept({ gateway: "g", dedupKey: "m", thread: "t", text: "q", origin });
  const id = (accepted as { id: number }).id;
  await db.inbox.markRunning(id);
  const reply = [
    { gateway: "g", thread: "t", idemKey: `g:in${id}`, kind: "text" as const, payload: { text: "a" } },
  ];
  const lock: HeldLock = link.held(KEY);
  /** The turn's end as the session writes it: its messages, then the record done with its reply. */
  const end = () =>
    db.createMemory({ canSummarize: false }).append({ userId: "u", conversationId: "c" }, turn, async () => {
      await db.inbox.finish(id, "done", reply, { lock, last: true });
    });
  return { db, id, link, other, end, session };
}

/** What the turn left in the store: its record's status, its reply rows, its messages. */
async function left(db: ChatDb, id: number) {
  return {
    status: (await db.inbox.get(id))?.status,
    replies: (await db.outbox.browse({ statuses: ["pending"] })).length,
    messages: (await db.createMemory({ canSummarize: false }).load({ userId: "u", conversationId: "c" }))
      .length,
  };
}

describe("a failed fenced statement's error", () => {
  it("is passed on as it is when an error in its chain has the refusal's code but no message text", () => {
    const odd = { code: "22P02", cause: undefined };
    expect(fenceError(odd, { pid: 1, key: KEY, incarnation: "1" })).toBe(odd);
  });

  it("is passed on as it is when its text quotes the refusal without the refusal's code: drizzle's wrapper of a cancel, which quotes the statement", () => {
    const lock = { pid: 1, key: KEY, incarnation: "1" };
    const { text, params } = fencedCount(lock);
    const cancelled = Object.assign(new Error("canceling statement due to user request"), { code: "57014" });
    const wrapped = new DrizzleQueryError(text, params, cancelled);
    expect(wrapped.message).toContain(MARK);
    expect(fenceError(wrapped, lock)).toBe(wrapped);
  });
});

describe.skipIf(postgresMissing)("[postgres] a turn's end with its fence folded in", () => {
  it("while the link's session holds the lock, the turn's end is one statement on its own: messages, record done, reply", async () => {
    const r = await rig();
    await r.link.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    const sent = await statementsOf(r.end);
    expect(verbs(sent)).toEqual(["with"]);
    expect(await left(r.db, r.id)).toEqual({ status: "done", replies: 1, messages: 2 });
  });

  it("a lock nobody holds, or held only shared, commits nothing of the turn: refused as lock_not_held", async () => {
    const r = await rig();
    const refused = await r.end().catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: "LockNotHeldError", code: "lock_not_held" });
    expect(await left(r.db, r.id)).toEqual({ status: "running", replies: 0, messages: 0 });
    // Shared holds are not a thread's (every instance holds its threads exclusively).
    await r.other.client.query("SELECT pg_advisory_lock_shared($1::bigint)", [KEY]);
    await expect(r.end()).rejects.toMatchObject({ code: "lock_not_held" });
    expect(await left(r.db, r.id)).toEqual({ status: "running", replies: 0, messages: 0 });
    // The refused statement's own shared try went with it (with its transaction, aborted just after
    // the error was sent): the key can be taken exclusively.
    await r.other.client.query("SELECT pg_advisory_unlock_shared($1::bigint)", [KEY]);
    await unheld(r.other.client, KEY);
    const { rows } = await r.other.client.query("SELECT pg_try_advisory_lock($1::bigint) AS ok", [KEY]);
    expect(rows[0]?.ok).toBe(true);
  });

  it("a lock taken over after the link's session was ended (pg_terminate_backend) commits nothing of the turn", async () => {
    const r = await rig();
    await r.link.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    await r.link.terminate(r.other.client);
    await r.other.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    await expect(r.end()).rejects.toMatchObject({ code: "lock_not_held" });
    expect(await left(r.db, r.id)).toEqual({ status: "running", replies: 0, messages: 0 });
  });

  it("the lock taken again by the link's next session (a reconnect: a new incarnation) does not pass the fence named by the session before", async () => {
    const r = await rig();
    await r.link.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    await r.link.terminate(r.other.client);
    const again = await r.session();
    await again.lock([KEY]);
    await expect(r.end()).rejects.toMatchObject({ code: "lock_not_held" });
    expect(await left(r.db, r.id)).toEqual({ status: "running", replies: 0, messages: 0 });
    // Named by the new session, it commits.
    await r.db.inbox.finish(r.id, "done", [], { lock: again.held(KEY), last: true });
    expect((await r.db.inbox.get(r.id))?.status).toBe("done");
  });

  it("a lock given back by the link's own session and taken by another, with that session alive, passes: the fence relies on the holder never giving a thread back while its turn ends (session-core ownership)", async () => {
    const r = await rig();
    await r.link.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    await r.link.client.query("SELECT pg_advisory_unlock($1::bigint)", [KEY]);
    await r.other.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    await r.end();
    expect(await left(r.db, r.id)).toEqual({ status: "done", replies: 1, messages: 2 });
  });

  it("the refusal names the lock and the session it was asked for, and carries the server's answer as its cause", async () => {
    const r = await rig();
    const refused = (await r.end().catch((e: unknown) => e)) as Error;
    expect(refused.message).toBe(`the lock ${KEY} is no longer held by session ${r.link.pid}: not committed`);
    expect(codesOf(refused.cause)).toContain("22P02");
  });

  it("a fenced turn's end the server refuses for another reason (cancelled while it waits for the record) fails with that error, not lock_not_held, and commits nothing", async () => {
    const r = await rig();
    await r.link.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    await holdInboxRow(r.other.client, r.id);
    const ending = r.end().then(
      () => undefined,
      (e: unknown) => e,
    );
    const [pid] = await lockWaiters(r.link.client, "with carried%");
    expect(pid).toBeDefined();
    await r.link.client.query("SELECT pg_cancel_backend($1::int)", [pid]);
    const failed = await ending;
    await r.other.client.query("ROLLBACK");
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toMatchObject({ code: "lock_not_held" });
    expect(codesOf(failed)).toContain("57014"); // query_canceled
    expect(await left(r.db, r.id)).toEqual({ status: "running", replies: 0, messages: 0 });
  });

  it("the lock is checked once the record is locked: a takeover that locked the record first, then took the lock of the ended session, finds the turn uncommitted", async () => {
    const r = await rig();
    await r.link.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    // Another instance's read of the record under a row lock is in progress.
    await holdInboxRow(r.other.client, r.id);
    const ending = r.end().then(
      () => "committed",
      (e: { code?: string }) => e.code,
    );
    // The turn's statement waits for the row; meanwhile the link's session ends and the lock moves.
    const watcher = await r.session();
    expect(await lockWaiters(watcher.client, "with carried%")).toHaveLength(1);
    await r.link.terminate(watcher.client);
    await r.other.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    await r.other.client.query("COMMIT");
    expect(await ending).toBe("lock_not_held");
    expect(await left(r.db, r.id)).toEqual({ status: "running", replies: 0, messages: 0 });
  });

  it("a turn's end that is not the last write sends BEGIN first, checks the lock in its statement, and commits with what follows", async () => {
    const r = await rig();
    await r.link.client.query("SELECT pg_advisory_lock($1::bigint)", [KEY]);
    const lock: HeldLock = r.link.held(KEY);
    const sent = await statementsOf(() =>
      r.db.transaction(async () => {
        await r.db.inbox.finish(r.id, "done", [], { lock });
        await r.db.inbox.markDone(r.id + 1000, "done");
      }),
    );
    expect(verbs(sent)).toEqual(["begin", "with", "update", "commit"]);
    expect((await r.db.inbox.get(r.id))?.status).toBe("done");
  });

  it("a statement asked for after the transaction's last one (committed on its own) is refused", async () => {
    const db = await postgresDriver.open();
    const accepted = await db.inbox.accept({ gateway: "g", dedupKey: "x", thread: "t", text: "q", origin });
    const id = (accepted as { id: number }).id;
    const after = db.transaction(async () => {
      await db.inbox.finish(id, "done", [], { last: true });
      await db.inbox.get(id);
    });
    await expect(after).rejects.toThrow(/after its last one, which already committed on its own/);
    expect((await db.inbox.get(id))?.status).toBe("done");
  });
});
