// Turn ends on PostgreSQL, grouped (#45.2): turn ends that arrive while one statement is in flight
// go together in the next, as statement-batch.ts groups accepts (a microtask, no timer, at most
// MAX_TURN_ENDS a statement). In a burst many threads' turns end at once; each was a statement, a
// round trip, a commit and a read of pg_locks of its own. Grouped, all of the batch's turns'
// messages, reply pieces, record ends and next records' running marks travel as unnest arrays in one
// statement, and its fence asks the lock manager for each turn (two lookups, lock-fence.ts).
//
// Per turn the semantics stay those of its own statement (inbox.ts `finish`): the statement commits
// on its own, and a caller is answered once it committed. A fence that fails for any turn fails the
// whole statement; then every turn of it runs again alone (its own statement, lock-fence.ts), so
// the refused turn fails with LockNotHeldError having committed nothing, and the others commit. A
// statement the server refuses for another reason (an ERROR: undone) runs again turn by turn the
// same way; one whose outcome is unknown (the connection lost) is not run again.
//
// A batch holds at most one end touching a record (ended, or marked running) and at most one turn's
// messages of a conversation: an end that would share either with one already taken waits for the
// next statement, and so do ends after it sharing one with it (a conversation's rows keep the order
// of its turns, and each row is written once a statement).
import type { Db } from "./context.js";
import { type HeldLock, heldBy, MARK } from "./lock-fence.js";
import type { OutboxValues } from "./outbox.js";
import { memoryRowsOf, OUTBOX_COLUMNS, type PgQuery, pgRows } from "./pg-writes.js";

/** Ends a statement holds at most: a refused statement runs each again alone, so not many more. */
const MAX_TURN_ENDS = 64;

/** One turn's end as `Inbox.finish` writes it. */
export interface TurnEnd {
  id: number;
  status: "done" | "rejected" | "failed";
  /** Its clock reading: the record's finished_at, and the next record's started_at. */
  at: number;
  /** The writes its transaction carried (the turn's messages). */
  carried: PgQuery[];
  pieces: OutboxValues[];
  lock?: HeldLock | undefined;
  /** The thread's next record, queued -> running with this end. */
  running?: number | undefined;
}

/** Whether `end` can share a statement: its carried writes are messages (memoryInsert), nothing else. */
export function groupable(end: TurnEnd): boolean {
  return end.carried.every((q) => memoryRowsOf(q) !== undefined);
}

/** What two ends of one statement must not share: records, conversations. */
function keysOf(end: TurnEnd): string[] {
  const keys = [`r${end.id}`];
  if (end.running !== undefined) keys.push(`r${end.running}`);
  for (const q of end.carried) {
    const rows = memoryRowsOf(q);
    if (rows) keys.push(`m${rows.userId}\u0000${rows.conversationId}`);
  }
  return keys;
}

// The fence is evaluated in the output rows, made of `e` (the aggregate over `ended`, the UPDATE ...
// RETURNING of the records): only once every record's row is locked (as FENCED_COUNT, lock-fence.ts).
// `t.inc` null: an end with no fence. Each turn's is two lookups in the lock manager (its thread's key
// held exclusively, its instance's session alive: lock-fence.ts `heldBy`); it read pg_locks before,
// a copy of the whole lock table a statement (every held thread a row: ~1,000 in a burst, #45.3).
// Messages, pieces and running marks are other tables or other inbox rows.
// The records are found by primary key (`id = ANY(...)` beside the join), their status checked as
// NOT IN the others (no index serves it): with `status IN (...)` a generic plan on statistics that
// show few unfinished rows read every unfinished row by the status index, the whole backlog, each
// statement (5,000 queued: 5,000 rows). Found in id order, they are locked in id order, as
// `unfinishedOf` locks them (no two statements wait on each other in a circle).
const TURN_ENDS = `WITH t AS (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) \
WITH ORDINALITY AS t(id, inc, lk, n)), \
ended AS (UPDATE "inbox" SET status = u.status, finished_at = u.at \
FROM unnest($4::bigint[], $5::text[], $6::bigint[]) AS u(id, status, at) \
WHERE "inbox".id = ANY($4::bigint[]) AND "inbox".id = u.id AND "inbox".status NOT IN ('done', 'rejected', 'failed') \
RETURNING "inbox".id), \
messages AS (INSERT INTO "memory_messages" (user_id, conversation_id, role, body, created_at) \
SELECT * FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[])), \
pieces AS (INSERT INTO "outbox" (${OUTBOX_COLUMNS}) SELECT * FROM unnest($12::text[], $13::text[], \
$14::text[], $15::text[], $16::text[], $17::text[], $18::bigint[], $19::bigint[], $20::text[]) \
ON CONFLICT (idem_key) DO NOTHING), \
started AS (UPDATE "inbox" SET status = 'running', started_at = s.at \
FROM unnest($21::bigint[], $22::bigint[]) AS s(id, at) \
WHERE "inbox".id = ANY($21::bigint[]) AND "inbox".id = s.id AND "inbox".status NOT IN ('running', 'done', 'rejected', 'failed')) \
SELECT t.n, CASE WHEN t.inc IS NULL OR (e.n >= 0 AND ${heldBy("t.lk", "t.inc")}) \
THEN CASE WHEN t.id = ANY(e.ids) THEN 1 ELSE 0 END ELSE ('${MARK}' || ' ' || e.n)::int END AS ended \
FROM (SELECT count(*)::int AS n, array_agg(id) AS ids FROM ended) e CROSS JOIN t ORDER BY t.n`;

/** The statement ending `ends` (in their order: a conversation's rows are numbered in it). */
function turnEnds(ends: readonly TurnEnd[]): PgQuery {
  const messages = ends.flatMap((e) => e.carried.map((q) => memoryRowsOf(q)!));
  const pieces = ends.flatMap((e) => e.pieces);
  const next = ends.filter((e) => e.running !== undefined);
  /** A scope's column, once for each of its rows. */
  const perRow = (value: (m: (typeof messages)[number]) => string) =>
    messages.flatMap((m) => m.role.map(() => value(m)));
  return {
    text: TURN_ENDS,
    params: [
      ends.map((e) => e.id),
      ends.map((e) => e.lock?.incarnation ?? null),
      ends.map((e) => e.lock?.key ?? null),
      ends.map((e) => e.id),
      ends.map((e) => e.status),
      ends.map((e) => e.at),
      perRow((m) => m.userId),
      perRow((m) => m.conversationId),
      messages.flatMap((m) => m.role),
      messages.flatMap((m) => m.body),
      messages.flatMap((m) => m.createdAt),
      pieces.map((p) => p.gateway),
      pieces.map((p) => p.thread),
      pieces.map((p) => p.idemKey),
      pieces.map((p) => p.kind),
      pieces.map((p) => p.payload),
      pieces.map((p) => p.status ?? "pending"),
      pieces.map((p) => p.nextAttemptAt),
      pieces.map((p) => p.createdAt),
      pieces.map((p) => p.traceparent ?? null),
      next.map((e) => e.running),
      next.map((e) => e.at),
    ],
  };
}

/**
 * Whether the server refused the statement, its session going on: then, as it commits on its own,
 * everything it wrote was undone. Not a lost connection, nor a session the server ended (SQLSTATE
 * class 08, 57P01-57P05: it may end after the commit).
 */
function refused(error: unknown): boolean {
  const e = error as { severity?: unknown; code?: unknown } | undefined;
  if (typeof e?.severity !== "string" || typeof e.code !== "string") return false;
  return /^[0-9A-Z]{5}$/.test(e.code) && !e.code.startsWith("08") && !/^57P0[1-5]$/.test(e.code);
}

interface Waiting {
  db: Db;
  end: TurnEnd;
  resolve(moved: boolean): void;
  reject(error: unknown): void;
}

/** Ends one turn in a statement of its own (today's, with its fence): whether its record moved. */
type EndAlone = (db: Db, end: TurnEnd) => Promise<boolean>;

export class TurnEndBatch {
  #waiting: Waiting[] = [];
  #flushing = false;

  constructor(
    private readonly alone: EndAlone,
    private readonly maxItems = MAX_TURN_ENDS,
  ) {}

  /**
   * Settles with whether the record moved once the statement holding `end` committed, or with its
   * own statement's error. `db`: the store's root handle (outside any transaction).
   */
  add(db: Db, end: TurnEnd): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ db, end, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        // A microtask, not a timer: ends added in the same tick share the first statement.
        queueMicrotask(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    try {
      while (this.#waiting.length > 0) await this.#commit(this.#take());
    } finally {
      this.#flushing = false;
    }
  }

  /** The next statement's ends, in arrival order; an end sharing a key with one before it waits. */
  #take(): Waiting[] {
    const taken: Waiting[] = [];
    const rest: Waiting[] = [];
    const used = new Set<string>();
    const blocked = new Set<string>();
    for (const w of this.#waiting) {
      const keys = keysOf(w.end);
      if (taken.length >= this.maxItems || keys.some((k) => used.has(k) || blocked.has(k))) {
        rest.push(w);
        for (const k of keys) blocked.add(k);
        continue;
      }
      taken.push(w);
      for (const k of keys) used.add(k);
    }
    this.#waiting = rest;
    return taken;
  }

  async #commit(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) {
      const [w] = batch as [Waiting];
      return this.alone(w.db, w.end).then(w.resolve, w.reject);
    }
    let rows: Record<string, unknown>[];
    try {
      rows = await pgRows(batch[0]!.db, turnEnds(batch.map((w) => w.end)));
    } catch (error) {
      // A fence refused (or the server refused the statement, rolled back): each end again, alone.
      if (refused(error)) await Promise.all(batch.map((w) => this.#commit([w])));
      // Anything else (the connection lost) may have come after the commit: run again, a turn's
      // messages would be written twice. Each turn fails as its own statement would have.
      else for (const w of batch) w.reject(error);
      return;
    }
    for (const [i, w] of batch.entries()) w.resolve(Number(rows[i]?.ended ?? 0) > 0);
  }
}
