// `status IN ('queued', 'running')` with the statuses written into the statement's text, not bound.
// On PostgreSQL inbox's and outbox_pending's status indexes are partial (store-schema step 14): the
// planner takes a partial index only when the query's own terms prove its predicate, which a
// parameter does not in a generic plan, the one a named statement keeps (store-postgres); with
// `status IN ($1, $2)` such a read scanned the whole table, finished records and sent pieces too.
import type { SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { sql } from "./orm.js";

/** Every status either table's column may hold: nothing else is written into a statement. */
const STATUSES = new Set(["queued", "running", "done", "rejected", "failed", "pending", "sent", "dead"]);

/** `column IN (<statuses as literals>)`; a status outside the tables' sets is refused. */
export function statusIn(column: SQLiteColumn, statuses: readonly string[]): SQL {
  if (statuses.length === 0) throw new TypeError("statusIn: no status");
  for (const s of statuses) if (!STATUSES.has(s)) throw new TypeError(`not a status: ${String(s)}`);
  return sql`${column} IN (${sql.raw(statuses.map((s) => `'${s}'`).join(", "))})`;
}

/**
 * `(column IN ('a') OR column IN ('b'))` (PostgreSQL reads a one-status IN as `=`): the same rows
 * as `statusIn`, for statuses kept in different partial indexes. On PostgreSQL outbox_thread_pending
 * holds the pending pieces and outbox_pending the dead ones (store-schema step 17): the planner
 * reads both (a BitmapOr) only from an OR written out, one arm an index's predicate; an IN list is
 * one clause, proven by neither.
 */
export function statusEither(column: SQLiteColumn, statuses: readonly string[]): SQL {
  if (statuses.length === 0) throw new TypeError("statusEither: no status");
  const arms = statuses.map((s) => statusIn(column, [s]));
  return sql`(${sql.join(arms, sql` OR `)})`;
}

/**
 * `(status IN (<statuses>) AND finished_at IS NULL)`: inbox records in `statuses`, queued or running.
 * On PostgreSQL inbox's index of unfinished records holds them by finished_at (store-schema step 19),
 * so a running mark, which changes status only, is a HOT update; the end sets both. The second term
 * selects no other rows and proves that index's predicate.
 */
export function unfinishedIn(
  inbox: { status: SQLiteColumn; finishedAt: SQLiteColumn },
  statuses: readonly ("queued" | "running")[],
): SQL {
  return sql`(${statusIn(inbox.status, statuses)} AND ${inbox.finishedAt} IS NULL)`;
}
