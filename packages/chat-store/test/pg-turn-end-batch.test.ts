// Turn ends on PostgreSQL grouped into one statement (turn-end-batch.ts, #45.2): ends that commit on
// their own and arrive together share a statement (messages, record ends, reply pieces, next
// records' running marks, each turn's fence), and each turn keeps the answer its own statement gave:
// a turn whose lock is gone commits nothing of its own while the others of its statement commit.
import type { RunOrigin } from "@agentsvc/agent-core";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import type { HeldLock } from "../src/lock-fence.js";
import { useStoreSessions } from "./pg-fence-rig.js";
import { holdInboxRow, lockWaiters } from "./pg-fence-waits.js";
import { nodes, type PlanNode } from "./plan-nodes.js";
import { statementsOf } from "./pg-statements.js";

const origin = (thread: string): RunOrigin => ({ gateway: "g", thread, meta: {} });

const verbs = (sent: { text: string }[]) => sent.map((s) => s.text.trim().split(/\s+/)[0]!.toLowerCase());

/** A thread's lock key (decimal bigint), one per thread. */
const keyOf = (thread: string) => String(7355608000 + thread.charCodeAt(0));

/**
 * A store, a session holding the threads' locks (an instance's link) and another (a taker's);
 * `lock` takes the threads' locks on the link, `ends` ends their turns under those locks together.
 */
const storeSessions = useStoreSessions();

async function rig() {
  const { db, link, other, session } = await storeSessions();
  const lock = async (threads: Thread[], by = link) => {
    for (const t of threads) await by.client.query("SELECT pg_advisory_lock($1::bigint)", [keyOf(t.name)]);
  };
  /** Their turns' ends, each fenced by the session `by` gives for it (the link's by default). */
  const ends = (
    threads: Thread[],
    count?: number,
    conversation?: string,
    by: (t: Thread) => typeof link = () => link,
  ) => threads.map((t) => end(db, t, by(t).held(keyOf(t.name)), count, conversation));
  return { db, link, other, session, lock, ends };
}

/**
 * Threads a and b, a's lock on a session of its own (one instance's link), b's on the rig's link
 * (another's); `ends` ends both turns together, each fenced by the session holding its lock.
 */
async function apart(r: Awaited<ReturnType<typeof rig>>) {
  const threads = await Promise.all(["a", "b"].map((n) => thread(r.db, n)));
  const [a, b] = threads as [Thread, Thread];
  const aLink = await r.session();
  await r.lock([a], aLink);
  await r.lock([b]);
  const ends = () => Promise.allSettled(r.ends(threads, 2, undefined, (t) => (t === a ? aLink : r.link)));
  return { a, b, aLink, ends };
}

/** A thread with a running record and a queued one after it. */
async function thread(db: ChatDb, name: string) {
  const record = async (n: number) => {
    const accepted = await db.inbox.accept({
      gateway: "g",
      dedupKey: `${name}${n}`,
      thread: name,
      text: `q${n}`,
      origin: origin(name),
    });
    return (accepted as { id: number }).id;
  };
  const id = await record(1);
  await db.inbox.markRunning(id);
  return { name, id, next: await record(2) };
}

type Thread = Awaited<ReturnType<typeof thread>>;

/** The turn's end as the session writes it: `count` messages of its conversation, then the record done with its reply and its next record running. */
function end(db: ChatDb, t: Thread, lock: HeldLock, count = 2, conversation = t.name) {
  const turn = Array.from({ length: count }, (_, i) => ({
    role: "assistant" as const,
    content: `${t.name}:${i}`,
  }));
  const reply = [
    {
      gateway: "g",
      thread: t.name,
      idemKey: `g:in${t.id}`,
      kind: "text" as const,
      payload: { text: t.name },
    },
  ];
  let moved: boolean | undefined;
  return db
    .createMemory({ canSummarize: false })
    .append({ userId: "g", conversationId: conversation }, turn, async () => {
      moved = await db.inbox.finish(t.id, "done", reply, { lock, last: true, running: t.next });
    })
    .then(() => moved);
}

/** What a thread's turn left: its record's and next record's status, its reply rows, its messages. */
async function left(db: ChatDb, t: Thread) {
  const replies = await db.outbox.browse({ statuses: ["pending"] });
  const messages = await db
    .createMemory({ canSummarize: false })
    .load({ userId: "g", conversationId: t.name });
  return {
    status: (await db.inbox.get(t.id))?.status,
    next: (await db.inbox.get(t.next))?.status,
    replies: replies.filter((r) => r.thread === t.name).length,
    messages: messages.map((m) => (m as { content: string }).content),
  };
}

/** What a thread's committed turn left: record done, next record running, its reply, its two messages. */
const committed = (t: Thread) => ({
  status: "done",
  next: "running",
  replies: 1,
  messages: [`${t.name}:0`, `${t.name}:1`],
});

/** What a thread's uncommitted turn left: its record still running, the next queued, nothing written. */
const untouched = { status: "running", next: "queued", replies: 0, messages: [] };

/** `v` as an SQL literal (arrays as array literals), for EXECUTE's arguments. */
function literal(v: unknown): string {
  const quoted = (x: unknown) => `"${String(x).replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const text = Array.isArray(v)
    ? `{${v.map((x) => (x === null ? "NULL" : quoted(x))).join(",")}}`
    : String(v);
  return `'${text.replace(/'/g, "''")}'`;
}

describe.skipIf(postgresMissing)("[postgres] turn ends grouped into one statement", () => {
  it("turn ends arriving together share one statement: each thread's messages, record done, reply and next record running", async () => {
    const r = await rig();
    const threads = await Promise.all(["a", "b", "c"].map((n) => thread(r.db, n)));
    await r.lock(threads);
    let moved: unknown[] = [];
    const sent = await statementsOf(async () => {
      moved = await Promise.all(r.ends(threads));
    });
    expect(verbs(sent)).toEqual(["with"]);
    expect(moved).toEqual([true, true, true]);
    for (const t of threads) expect(await left(r.db, t)).toEqual(committed(t));
  });

  it("a grouped statement where one turn's lock is gone commits the others and refuses that one whole, as lock_not_held", async () => {
    const r = await rig();
    const threads = await Promise.all(["a", "b", "c"].map((n) => thread(r.db, n)));
    // b's lock is free: nobody holds it.
    await r.lock(threads.filter((t) => t.name !== "b"));
    let settled: PromiseSettledResult<boolean | undefined>[] = [];
    const sent = await statementsOf(async () => {
      settled = await Promise.allSettled(r.ends(threads));
    });
    // The grouped statement refused, then each turn alone.
    expect(verbs(sent)).toEqual(["with", "with", "with", "with"]);
    expect(settled[0]).toEqual({ status: "fulfilled", value: true });
    expect(settled[1]).toMatchObject({ status: "rejected", reason: { name: "LockNotHeldError" } });
    expect(settled[2]).toEqual({ status: "fulfilled", value: true });
    const [a, b, c] = threads as [Thread, Thread, Thread];
    expect(await left(r.db, b)).toEqual(untouched);
    for (const t of [a, c]) expect(await left(r.db, t)).toEqual(committed(t));
  });

  it("a grouped statement refuses the turn of a session that ended (its lock taken over) and commits the turns of a live one, each named by its own incarnation", async () => {
    const r = await rig();
    const { a, b, aLink: gone, ends } = await apart(r);
    await gone.terminate(r.other.client);
    await r.lock([a], r.other);
    const settled = await ends();
    expect(settled[0]).toMatchObject({ status: "rejected", reason: { code: "lock_not_held" } });
    expect(settled[1]).toEqual({ status: "fulfilled", value: true });
    expect(await left(r.db, a)).toEqual(untouched);
    expect(await left(r.db, b)).toEqual(committed(b));
  });

  it("the grouped statement checks the locks once every record is locked: a takeover that locked one thread's record first, then took its lock from the session that ended, finds that turn uncommitted and the other committed", async () => {
    const r = await rig();
    const { a, b, aLink, ends } = await apart(r);
    // Another instance's read of a's record under a row lock is in progress.
    await holdInboxRow(r.other.client, a.id);
    const ending = ends();
    // The grouped statement waits for a's row; meanwhile a's link session ends, its lock moves.
    expect(await lockWaiters(r.link.client, "with t as%")).toHaveLength(1);
    await aLink.terminate(r.link.client);
    await r.other.client.query("SELECT pg_advisory_lock($1::bigint)", [keyOf("a")]);
    await r.other.client.query("COMMIT");
    const [endedA, endedB] = await ending;
    expect(endedA).toMatchObject({ status: "rejected", reason: { code: "lock_not_held" } });
    expect(endedB).toEqual({ status: "fulfilled", value: true });
    expect(await left(r.db, a)).toEqual(untouched);
    expect((await left(r.db, b)).status).toBe("done");
  });

  it("a grouped statement whose session the server ends (it may have committed) fails each of its turns with that error and is not run again", async () => {
    const r = await rig();
    const threads = await Promise.all(["a", "b"].map((n) => thread(r.db, n)));
    const [a, b] = threads as [Thread, Thread];
    await r.lock(threads);
    await holdInboxRow(r.other.client, a.id);
    let settled: PromiseSettledResult<boolean | undefined>[] = [];
    const sent = await statementsOf(async () => {
      const ending = Promise.allSettled(r.ends(threads));
      const [pid] = await lockWaiters(r.link.client, "with t as%");
      expect(pid).toBeDefined();
      await r.link.client.query("SELECT pg_terminate_backend($1::int)", [pid]);
      settled = await ending;
    });
    await r.other.client.query("ROLLBACK");
    const ours = sent.filter((s) => /^with t as/i.test(s.text) || /^with carried/i.test(s.text));
    expect(verbs(ours)).toEqual(["with"]);
    for (const s of settled) expect(s).toMatchObject({ status: "rejected", reason: { code: "57P01" } });
    for (const t of [a, b]) expect(await left(r.db, t)).toEqual(untouched);
  });

  it("the grouped statement's generic plan finds the ended and the started records by primary key while statistics show no unfinished record and 5,000 are queued", async () => {
    const r = await rig();
    await r.link.client.query(
      "INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at) SELECT 'g', 'old' || i, 'old' || i, 'x', '{}', 'done', 0 FROM generate_series(1, 50000) i",
    );
    await r.link.client.query("ANALYZE inbox");
    await r.link.client.query("UPDATE inbox SET status = 'queued' WHERE id <= 5000");
    const threads = await Promise.all(["a", "b"].map((n) => thread(r.db, n)));
    await r.lock(threads);
    const sent = await statementsOf(() => Promise.all(r.ends(threads)));
    const grouped = sent.find((s) => /^with t as/i.test(s.text));
    expect(grouped).toBeDefined();
    await r.link.client.query("BEGIN");
    await r.link.client.query("SET LOCAL plan_cache_mode = force_generic_plan");
    await r.link.client.query(`PREPARE grouped AS ${grouped!.text}`);
    const plan = await r.link.client.query(
      `EXPLAIN (COSTS OFF) EXECUTE grouped(${grouped!.values.map(literal).join(", ")})`,
    );
    await r.link.client.query("ROLLBACK");
    const lines = plan.rows.map((row) => String(row["QUERY PLAN"]));
    expect(lines.filter((l) => l.includes("Index Scan using inbox_pkey on inbox"))).toHaveLength(2);
    expect(lines.filter((l) => l.includes("inbox_status"))).toEqual([]);
  });

  it("the grouped statement's fence reads no pg_locks (the lock manager answers each turn) and holds no lock once it committed", async () => {
    const r = await rig();
    const threads = await Promise.all(["a", "b", "c", "d"].map((n) => thread(r.db, n)));
    await r.lock(threads);
    const sent = await statementsOf(() => Promise.all(r.ends(threads)));
    const grouped = sent.find((s) => /^with t as/i.test(s.text));
    expect(grouped).toBeDefined();
    // Run again on another session, undone: the records are done by now, the fence is evaluated
    // for each turn all the same (the link's session holds every key).
    await r.other.client.query("BEGIN");
    await r.other.client.query(`PREPARE grouped AS ${grouped!.text}`);
    const { rows } = await r.other.client.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE grouped(${grouped!.values.map(literal).join(", ")})`,
    );
    // Each shared try failed (the keys are held exclusively): nothing of them held by this transaction.
    const held = await r.other.client.query(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()",
    );
    await r.other.client.query("ROLLBACK");
    expect(held.rows[0]?.n).toBe(1); // its own incarnation
    const plan = (rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan;
    expect([...nodes(plan)].filter((n) => n["Function Name"] === "pg_lock_status")).toEqual([]);
  });

  it("two turns of one statement keep their messages in their order (ids), each conversation's rows from its own turn", async () => {
    const r = await rig();
    const threads = await Promise.all(["a", "b"].map((n) => thread(r.db, n)));
    await r.lock(threads);
    const sent = await statementsOf(() => Promise.all(r.ends(threads, 5)));
    expect(verbs(sent)).toEqual(["with"]);
    const rows = await r.link.client.query(
      "SELECT conversation_id AS c, body FROM memory_messages ORDER BY id",
    );
    const order = rows.rows.map(
      (row) => `${row.c}/${(JSON.parse(row.body as string) as { content: string }).content}`,
    );
    expect(order).toEqual(
      [0, 1, 2, 3, 4].map((i) => `a/a:${i}`).concat([0, 1, 2, 3, 4].map((i) => `b/b:${i}`)),
    );
  });

  it("two ends arriving together with messages of one conversation go in two statements, in arrival order", async () => {
    const r = await rig();
    const threads = await Promise.all(["a", "b"].map((n) => thread(r.db, n)));
    await r.lock(threads);
    const sent = await statementsOf(() => Promise.all(r.ends(threads, 3, "shared")));
    expect(verbs(sent)).toEqual(["with", "with"]);
    const messages = await r.db
      .createMemory({ canSummarize: false })
      .load({ userId: "g", conversationId: "shared" });
    expect(messages.map((m) => (m as { content: string }).content)).toEqual([
      "a:0",
      "a:1",
      "a:2",
      "b:0",
      "b:1",
      "b:2",
    ]);
  });
});
