// The fence of a turn's commit folded into its statement (PostgreSQL, several instances): the
// statement that ends the turn's inbox record also asks, once the record's row is locked, whether
// the instance's cluster session still holds the thread's advisory lock, and fails (all of it: the
// turn's messages, its reply) when it does not. An instance taking the thread over takes the lock
// first, then reads the record under a row lock: it waits for this statement, and finds the record
// ended, or the turn never committed.
//
// "Session P holds key K" is asked of the lock manager, two lookups of O(1) (pg_locks, read before,
// copies the server's whole lock table: every held thread is a row of it, ~1,000 in a burst,
// 0.35-0.45 ms a read, #45.3):
// - someone holds K exclusively: `NOT pg_try_advisory_xact_lock_shared(K)` fails at once then (a try
//   that succeeds holds K shared until the statement's transaction ends, and the statement fails);
// - that someone is P: P's session is alive, the same incarnation (pg-cluster incarnation.ts: a lock
//   on a random key the link's session takes as it connects and holds until it ends).
// Both true while P holds K. The converse needs one thing more: P never gives K back by itself while
// a turn of K is ending. The only other way K leaves P is P's session ending, which takes its
// incarnation with it (a reconnect is a new incarnation). session-core lets a thread go only inside
// its serialized changes and only with no turn of it running (ownership.ts `settle`, `#letGo`:
// `hasWork`), and a turn's end is written while its turn runs (turns.ts `#commit`, under
// `persistWith`); pg-cluster gives a lock back only when asked (`unlock`; a failed statement's
// requests are asked again as they were, a take as a take), never behind its holder's back. Tests:
// session-core turn-end-pg.test.ts (the lock stays on its session while the end statement waits),
// pg-turn-fence.test.ts here (what a give-back by the live session itself would leave unseen).
import type { PgQuery } from "./pg-writes.js";

/**
 * A session advisory lock: its bigint key (decimal) and the session holding it, by its incarnation
 * key (decimal: the high and low 32 bits are the two int4 halves of its lock, objsubid 2) and its
 * backend pid (named in the refusal).
 */
export interface HeldLock {
  pid: number;
  key: string;
  incarnation: string;
}

/** What the failed cast in a fenced statement says (SQLSTATE 22P02), to tell the refusal from other errors (here and turn-end-batch.ts). */
export const MARK = "agentsvc: the thread lock is not held";

/** The commit was refused: the lock was not held once the record was locked. */
export class LockNotHeldError extends Error {
  readonly code = "lock_not_held";
  constructor(lock: HeldLock, cause: unknown) {
    super(`the lock ${lock.key} is no longer held by session ${lock.pid}: not committed`, { cause });
    this.name = "LockNotHeldError";
  }
}

/**
 * Whether the session of `incarnation` (a bigint SQL expression) is alive, in SQL: its incarnation
 * lock is held. The lock's int4 halves by arithmetic shifts (`<< 32 >> 32` sign-extends the low half).
 */
export function sessionAlive(incarnation: string): string {
  return `NOT pg_try_advisory_xact_lock_shared((${incarnation} >> 32)::int, ((${incarnation} << 32) >> 32)::int)`;
}

/** Whether the session of `incarnation` holds `key` exclusively, in SQL (see the file header). */
export function heldBy(key: string, incarnation: string): string {
  return `NOT pg_try_advisory_xact_lock_shared(${key}) AND ${sessionAlive(incarnation)}`;
}

const FENCED_COUNT = `SELECT CASE WHEN e.n >= 0 AND ${heldBy("$1::bigint", "$2::bigint")}
  THEN e.n ELSE ('${MARK}' || ' ' || e.n)::int END AS n FROM (SELECT count(*)::int AS n FROM ended) e`;

/**
 * The statement's main query over `ended` (the UPDATE ... RETURNING of the record, a WITH clause):
 * how many rows it ended, once the fence passed. The fence is in the output row of the aggregate
 * over `ended`, so it is evaluated only after the UPDATE ran to completion (every row it returns is
 * locked; a volatile call is never evaluated ahead by the planner); when it fails the statement
 * fails with a cast error (no function to create: PostgreSQL has no raise outside PL/pgSQL), undone
 * whole.
 */
export function fencedCount(lock: HeldLock): PgQuery {
  return { text: FENCED_COUNT, params: [lock.key, lock.incarnation] };
}

/** The error to throw for a failed fenced statement: a LockNotHeldError when the fence refused it. */
export function fenceError(error: unknown, lock: HeldLock): unknown {
  // The server's error, or one wrapping it as its cause (drizzle's DrizzleQueryError).
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (e.code === "22P02" && typeof e.message === "string" && e.message.includes(MARK))
      return new LockNotHeldError(lock, error);
  }
  return error;
}
