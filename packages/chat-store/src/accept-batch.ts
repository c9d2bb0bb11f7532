// Inbox accepts on PostgreSQL, grouped (statement-batch.ts): accepts that arrive while one INSERT
// is in flight go together in one multi-row `INSERT ... ON CONFLICT DO NOTHING RETURNING`. One
// round trip (a socket write and a wake-up on both sides, a parse and a plan on the server) then
// serves a whole burst instead of each message.
import { StatementBatch } from "./statement-batch.js";

/** One inbox row as the accept writes it. */
export interface AcceptRow {
  gateway: string;
  dedupKey: string;
  thread: string;
  text: string;
  origin: string;
  status: "queued";
  receivedAt: number;
  /** JSON of the attachment refs, or null. */
  attachments: string | null;
  /** PostgreSQL, several instances: the row announced to its thread's holder by its INSERT (inbox.ts). */
  announce?: RecordAnnounce | undefined;
}

/**
 * A NOTIFY the INSERT sends for its row when a session holds the advisory lock `lock.key` (decimal)
 * exclusively (pg-writes.ts; `lock.pid`, the recorder's session, is not read): on `channel`,
 * `payload` (a JSON object) with `"id"` (the row's) added.
 */
export interface RecordAnnounce {
  lock: { pid: number; key: string };
  channel: string;
  payload: string;
}

/** `announced`: the row's `announce` was sent (its thread's lock is held, by another session as a rule). */
export type AcceptResult =
  | { accepted: true; id: number; announced?: boolean }
  | { accepted: false; duplicate: true };

/** Inserts rows, skipping (gateway, dedupKey) pairs that exist; returns the rows it inserted. */
export type InsertRows = (
  rows: AcceptRow[],
) => Promise<{ id: number; gateway: string; dedupKey: string; announced?: boolean }[]>;

/** Statements stay well below PostgreSQL's 65,535 parameters (8 per row). */
const MAX_ROWS = 500;

const keyOf = (gateway: string, dedupKey: string) => `${gateway}\u0000${dedupKey}`;

/** `add(row)` answers with the row's id, or duplicate when its key was stored already. */
export function acceptBatch(insert: InsertRows): StatementBatch<AcceptRow, AcceptResult> {
  return new StatementBatch(async (rows) => {
    const ids = new Map((await insert(rows)).map((r) => [keyOf(r.gateway, r.dedupKey), r]));
    // The same key twice in one statement: the first in arrival order was inserted, the rest repeat it.
    return rows.map((row): AcceptResult => {
      const key = keyOf(row.gateway, row.dedupKey);
      const inserted = ids.get(key);
      ids.delete(key);
      if (!inserted) return { accepted: false, duplicate: true };
      return inserted.announced
        ? { accepted: true, id: inserted.id, announced: true }
        : { accepted: true, id: inserted.id };
    });
  }, MAX_ROWS);
}
