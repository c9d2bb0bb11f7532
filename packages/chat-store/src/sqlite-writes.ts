// SQLite: a gateway message's own writes (its inbox row accepted, taken and ended, its reply queued
// and marked sent) as SQL written here instead of built by drizzle on every call: drizzle's query
// building was the largest share of the server's CPU per message in an ingest-e2e profile. Run
// through the connection's `prepare`, so each text is prepared once (statement-cache.ts) and the
// group commit still sees every write before it runs (its savepoint, and the sync it answers after).
import type { Db } from "./context.js";
import type { SqliteConnection } from "./driver.js";
import type { OutboxValues } from "./outbox.js";

/** The better-sqlite3 connection under a SQLite drizzle handle. */
export function clientOf(db: Db): SqliteConnection {
  return (db as Db & { $client: SqliteConnection }).$client;
}

/** Whether a statement that ends in `RETURNING id` changed a row. */
function changed(db: Db, text: string, params: unknown[]): boolean {
  return clientOf(db).prepare(text).all(params).length > 0;
}

export interface InboxRow {
  gateway: string;
  dedupKey: string;
  thread: string;
  text: string;
  origin: string;
  receivedAt: number;
  attachments: string | null;
}

/** A queued inbox row, unless its (gateway, dedupKey) exists: its id, or undefined for a duplicate. */
export function acceptInbox(db: Db, row: InboxRow): number | undefined {
  const rows = clientOf(db)
    .prepare(
      "INSERT INTO inbox (gateway, dedup_key, thread, text, origin, status, received_at, attachments) " +
        "VALUES (?, ?, ?, ?, ?, 'queued', ?, ?) ON CONFLICT (gateway, dedup_key) DO NOTHING RETURNING id",
    )
    .all(row.gateway, row.dedupKey, row.thread, row.text, row.origin, row.receivedAt, row.attachments) as {
    id: number;
  }[];
  return rows[0]?.id;
}

/** queued -> running. */
export function inboxRunning(db: Db, id: number, now: number): boolean {
  return changed(
    db,
    "UPDATE inbox SET status = 'running', started_at = ? WHERE id = ? AND status = 'queued' RETURNING id",
    [now, id],
  );
}

/** queued|running -> `status`. */
export function inboxFinished(db: Db, id: number, status: string, now: number): boolean {
  return changed(
    db,
    "UPDATE inbox SET status = ?, finished_at = ? WHERE id = ? AND status IN ('queued', 'running') RETURNING id",
    [status, now, id],
  );
}

/** One outbox piece, unless its idemKey exists: its id, or undefined. */
export function insertOutbox(db: Db, row: OutboxValues): number | undefined {
  const rows = clientOf(db)
    .prepare(
      "INSERT INTO outbox (gateway, thread, idem_key, kind, payload, status, next_attempt_at, created_at, traceparent) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idem_key) DO NOTHING RETURNING id",
    )
    .all(
      row.gateway,
      row.thread,
      row.idemKey,
      row.kind,
      row.payload,
      row.status,
      row.nextAttemptAt,
      row.createdAt,
      row.traceparent ?? null,
    ) as { id: number }[];
  return rows[0]?.id;
}

/** pending -> sent, one attempt more. */
export function outboxSent(db: Db, id: number, platformId: string | null, now: number): boolean {
  return changed(
    db,
    "UPDATE outbox SET status = 'sent', attempts = attempts + 1, platform_id = ?, finished_at = ? " +
      "WHERE id = ? AND status = 'pending' RETURNING id",
    [platformId, now, id],
  );
}
