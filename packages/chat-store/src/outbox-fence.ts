// The outbox sender's fence folded into its due read (PostgreSQL, several instances): the read
// returns pieces only while the session named by `incarnation` (the sending instance's cluster link) holds
// every lock in `keys` (the outbox roles it sends for). An instance whose link went away without it
// noticing (the server ended the session, another instance took the roles) keeps its pool, and
// without this its timed look could send a piece the new holder sends too (#45.3).
//
// Asked of the lock manager as a turn's fence is (lock-fence.ts): every role key held exclusively by
// someone, and the sending session alive (its incarnation). That is "this session holds them" save
// for a role this instance gave back by itself and another took: session-core gives a role up only
// after its sender is restricted to the roles it keeps (outbox-shares.ts `#giveUp`), so a due read
// still naming it is one begun before, whose rows of that partition the sender drops as the read
// returns and again at send time (outbox-sender.ts `#sendable`, the share as it is then), and whose
// batch in flight the give-up waits for (session-core outbox-fence-given-up.test.ts).
import { sessionAlive } from "./lock-fence.js";

/**
 * The roles' locks a due read checks: their bigint keys (decimal) and the session holding them, by
 * its incarnation (lock-fence.ts HeldLock) and its backend pid (named in the refusal).
 */
export interface RoleFence {
  pid: number;
  keys: readonly string[];
  incarnation: string;
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

// The fence as a condition of the due read (outbox-share.ts), parameters $3-$5 (`roleFenceParams`):
// the incarnation, the role keys, their count. One uncorrelated subquery (an init plan, checked
// before any row is read) counts the keys held exclusively by someone (a shared try that fails; one
// that succeeds holds its key until the read ends, and the read fails). The failed cast reads the
// count, so it cannot be folded into a constant when the statement is planned.
export const roleFenceClause = `(SELECT CASE WHEN f.n = $5::int AND ${sessionAlive("$3::bigint")}
  THEN true ELSE ('${MARK}' || ' ' || f.n)::int > 0 END
  FROM (SELECT count(*)::int AS n FROM unnest($4::int8[]) AS r(k) WHERE NOT pg_try_advisory_xact_lock_shared(r.k)) f)`;

/** The parameters $3-$5 of `roleFenceClause`. */
export function roleFenceParams(fence: RoleFence): unknown[] {
  return [fence.incarnation, [...fence.keys], fence.keys.length];
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
