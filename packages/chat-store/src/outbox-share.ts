// A sender's share of the outbox in its due read (PostgreSQL, several instances, #45.3). Threads
// fall in partitions (session-core outbox-partition.ts), and a sender restricted to some of them
// filtered the due rows after the read, so each read returned every instance's due heads. The
// statement now computes each head's partition itself and returns only the sender's.
import { type RoleFence, roleFenceClause, roleFenceParams } from "./outbox-fence.js";
import { OUTBOX_NEXT_DUE, outboxDue, type PgQuery } from "./pg-writes.js";

/** The partitions a sender sends (several instances): a due read returns only their thread heads. */
export interface OutboxShare {
  /** How many partitions there are. */
  of: number;
  /** The partitions this sender sends (0 .. of-1). */
  parts: readonly number[];
  /** Gateways whose threads are spread by hash; every thread of any other gateway is in partition 0. */
  hashed: readonly string[];
}

/**
 * A thread's partition in SQL, the same as session-core's `outboxPartition`: the first 4 bytes of
 * the md5 of `<gateway>\n<thread>` (UTF-8) as an unsigned big-endian integer, modulo `of`; 0 for a
 * gateway not listed. Built-in functions only (no migration), a few microseconds a head.
 */
function partitionSql(of: string, hashed: string): string {
  return `(CASE WHEN gateway = ANY(${hashed}::text[]) THEN ('x' || substr(md5(convert_to(gateway || E'\\n' || thread, 'UTF8')), 1, 8))::bit(32)::int8 % ${of}::int8 ELSE 0 END)`;
}

const BASE = outboxDue(0, 0).text;
const HEADS_ORDER = " ORDER BY head_id LIMIT $2";
const LAST_ORDER = " ORDER BY id";
if (!BASE.includes(HEADS_ORDER) || !BASE.endsWith(LAST_ORDER))
  throw new Error("outbox-share: the due read's shape changed");

function dueText(fenced: boolean, shared: boolean): string {
  let text = BASE;
  if (shared) {
    const n = fenced ? 6 : 3;
    // Not `= ANY(...)`: with no statistics on the expression PostgreSQL guesses 0.5% of the heads
    // match per partition, and a custom plan read and sorted every due head instead of walking
    // them in head order to the limit (2,000 heads read for 32). An IS NOT NULL it guesses at
    // 99.5%: the walk, which reads about limit / share heads.
    const filter = ` AND array_position($${n + 1}::int8[], ${partitionSql(`$${n}`, `$${n + 2}`)}) IS NOT NULL`;
    text = text.replace(HEADS_ORDER, `${filter}${HEADS_ORDER}`);
  }
  if (fenced) text = `${text.slice(0, -LAST_ORDER.length)} AND ${roleFenceClause}${LAST_ORDER}`;
  return text;
}

/** The four shapes of the due read (named statements: one text each). */
const TEXTS = [dueText(false, false), dueText(false, true), dueText(true, false), dueText(true, true)];

/**
 * The due read: its heads only of `share`'s partitions when given, refused whole unless `fence`
 * holds when given (a RoleNotHeldError from `fencedDueError`, outbox-fence.ts).
 */
export function dueQuery(now: number, limit: number, fence?: RoleFence, share?: OutboxShare): PgQuery {
  const params: unknown[] = [now, limit];
  if (fence) params.push(...roleFenceParams(fence));
  if (share) params.push(share.of, [...share.parts], [...share.hashed]);
  return { text: TEXTS[(fence ? 2 : 0) + (share ? 1 : 0)]!, params };
}

// The timed look's read of the next due time, with the same share: before, a restricted sender saw
// other partitions' heads come due, woke for them and found nothing in its due read. min() over a
// filter is still planned as a walk of the heads' next_attempt_at index to the first one in the
// share (about `of / parts.length` heads), not a read of them all (outbox-plan.test.ts).
if (!OUTBOX_NEXT_DUE.text.endsWith(' FROM "outbox_heads"'))
  throw new Error("outbox-share: the next-due read's shape changed");
const NEXT_DUE_SHARED = `${OUTBOX_NEXT_DUE.text} WHERE array_position($2::int8[], ${partitionSql("$1", "$3")}) IS NOT NULL`;

/** The earliest `next_attempt_at` among thread heads, only of `share`'s partitions when given. */
export function nextDueQuery(share?: OutboxShare): PgQuery {
  if (!share) return OUTBOX_NEXT_DUE;
  return { text: NEXT_DUE_SHARED, params: [share.of, [...share.parts], [...share.hashed]] };
}
