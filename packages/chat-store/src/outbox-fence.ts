// The outbox sender's fence folded into its due read (PostgreSQL, several instances): the read
// returns pieces only while the session named by `pid` (the sending instance's cluster link) holds
// every lock in `keys` (the outbox roles it sends for). An instance whose link went away without it
// noticing (the server ended the session, another instance took the roles) keeps its pool, and
// without this its timed look could send a piece the new holder sends too (#45.3).

/** The roles' locks a due read checks: the backend pid of the session holding them and their bigint keys (decimal). */
export interface RoleFence {
  pid: number;
  keys: readonly string[];
}

/** What the failed cast in the statement says (SQLSTATE 22P02), to tell the refusal from other errors. */
const MARK = "agentsvc: the outbox role is not held";

/** The due read was refused: a role's lock was not held by the fence's session. */
class RoleNotHeldError extends Error {
  readonly code = "role_not_held";
  constructor(fence: RoleFence, cause: unknown) {
    super(`the outbox roles are no longer all held by session ${fence.pid}: nothing read`, { cause });
    this.name = "RoleNotHeldError";
  }
}

// The fence as a condition of the due read (outbox-share.ts), parameters $3-$6 (`roleFenceParams`).
// pg_locks is read once (one uncorrelated subquery: an init plan, checked before any row is read).
// A bigint key shows there as classid (high 32 bits) and objid (low 32 bits), objsubid 1. The
// failed cast reads the count, so it cannot be folded into a constant when the statement is planned.
export const roleFenceClause = `(SELECT CASE WHEN f.n = $6::int THEN true ELSE ('${MARK}' || ' ' || f.n)::int > 0 END
  FROM (SELECT count(*)::int AS n FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
    AND l.pid = $3::int AND l.objsubid = 1
    AND (l.classid::int8, l.objid::int8) IN (SELECT * FROM unnest($4::int8[], $5::int8[]))) f)`;

/** The parameters $3-$6 of `roleFenceClause`. */
export function roleFenceParams(fence: RoleFence): unknown[] {
  const parts = fence.keys.map((key) => BigInt.asUintN(64, BigInt(key)));
  const high = parts.map((k) => (k >> 32n).toString());
  const low = parts.map((k) => (k & 0xffffffffn).toString());
  return [fence.pid, high, low, fence.keys.length];
}

/** The error to throw for a failed fenced due read: a RoleNotHeldError when the fence refused it. */
export function fencedDueError(error: unknown, fence: RoleFence): unknown {
  // The server's error, or one wrapping it as its cause (drizzle's DrizzleQueryError).
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (e.code === "22P02" && typeof e.message === "string" && e.message.includes(MARK))
      return new RoleNotHeldError(fence, error);
  }
  return error;
}
