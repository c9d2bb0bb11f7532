// Small helpers for awaited drizzle results, the same on SQLite and PostgreSQL.
import type { SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db, StoreContext } from "./context.js";

/** The first row, or undefined. */
export function first<T>(rows: readonly T[]): T | undefined {
  return rows[0];
}

/** The one row a statement must have produced (an insert's or update's `returning`). */
export function one<T>(rows: readonly T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error("chat store: the statement returned no row");
  return row;
}

/**
 * The rows matching `where`, locked until the transaction ends on PostgreSQL (`FOR UPDATE`), so a
 * read-then-write cannot race another instance. SQLite's write transaction is exclusive already.
 */
export function lockRow<T extends SQLiteTable>(db: Db, table: T, where: SQL | undefined, ctx: StoreContext) {
  const query = db
    .select()
    .from(table as SQLiteTable)
    .where(where);
  if (ctx.dialect !== "postgres") return query as unknown as Promise<T["$inferSelect"][]>;
  // The handle is node-postgres drizzle here (see context.ts): its select builder has `for`.
  return (query as unknown as { for(s: "update"): Promise<T["$inferSelect"][]> }).for("update");
}
