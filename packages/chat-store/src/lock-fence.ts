// The fence of a turn's commit folded into its statement (PostgreSQL, several instances): the
// statement that ends the turn's inbox record also asks pg_locks whether the instance's cluster
// session still holds the thread's advisory lock, once the record's row is locked, and fails (all of
// it: the turn's messages, its reply) when it does not. An instance taking the thread over takes the
// lock first, then reads the record under a row lock: it waits for this statement, and finds the
// record ended, or the turn never committed.
import type { PgQuery } from "./pg-writes.js";

/** A session advisory lock: the backend pid of the session holding it, and its bigint key (decimal). */
export interface HeldLock {
  pid: number;
  key: string;
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

const FENCED_COUNT = `SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
  AND l.pid = $1::int AND l.classid = (($2::bigint >> 32) & 4294967295)::oid
  AND l.objid = ($2::bigint & 4294967295)::oid AND l.objsubid = 1 AND e.n >= 0)
  THEN e.n ELSE ('${MARK}' || ' ' || e.n)::int END AS n FROM (SELECT count(*)::int AS n FROM ended) e`;

/**
 * The statement's main query over `ended` (the UPDATE ... RETURNING of the record, a WITH clause):
 * how many rows it ended, once the fence passed. The fence reads `e.n`, so it is evaluated only
 * after the UPDATE ran to completion (every row it returns is locked); when it fails the statement
 * fails with a cast error (no function to create: PostgreSQL has no raise outside PL/pgSQL), undone
 * whole.
 */
export function fencedCount(lock: HeldLock): PgQuery {
  return { text: FENCED_COUNT, params: [lock.pid, lock.key] };
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
