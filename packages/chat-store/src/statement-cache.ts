// Prepared statements reused by SQL text. drizzle prepares every query again each time it runs it
// (sqlite3_prepare: parse and plan), which was the largest single cost of a gateway message on
// SQLite (a profile under ingest load: 14% of the server's CPU). The same text prepares to the
// same statement, so a statement already prepared on the connection is handed out again.
import type { SqliteConnection } from "./driver.js";

/**
 * Statements kept per connection, least recently used dropped first. The hot paths use a few
 * dozen texts; multi-row inserts and IN lists vary in length, so the cache is bounded.
 */
export const MAX_STATEMENTS = 256;

type Statement = ReturnType<SqliteConnection["prepare"]>;

/**
 * Makes `sqlite.prepare` return a cached statement for a text it prepared before, and counts the
 * statements handed out that can write (SQLite's sqlite3_stmt_readonly): drizzle calls prepare
 * once per query it runs, so the count moves exactly when a query that can write runs. An
 * `INSERT … ON CONFLICT DO NOTHING` that changed nothing still counts (its answer may rest on a
 * row another caller is still syncing). Returns the count so far.
 *
 * A statement is shared by everyone who prepares its text: callers run it to the end at once
 * (run/get/all: drizzle never iterates), and only `raw` is toggled (drizzle's `values`), so a
 * reader is handed out with `raw` off again. One still being iterated is not shared.
 * `beforeWrite` runs when a statement that can write is handed out, before it runs (the group
 * commit opens a transaction's savepoint there, group-commit.ts).
 */
export function reuseStatements(sqlite: SqliteConnection, beforeWrite?: () => void): () => number {
  let writes = 0;
  const cache = new Map<string, Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (statement && !statement.busy) {
      // Most recently used last: Map keeps insertion order.
      cache.delete(source);
      cache.set(source, statement);
      if (statement.reader) statement.raw(false);
    } else {
      statement = prepare(source);
      if (!cache.has(source)) {
        cache.set(source, statement);
        if (cache.size > MAX_STATEMENTS) cache.delete(cache.keys().next().value as string);
      }
    }
    if (!statement.readonly) {
      writes++;
      beforeWrite?.();
    }
    return statement;
  }) as typeof sqlite.prepare;
  return () => writes;
}
