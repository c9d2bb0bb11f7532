import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";

/** What every table API shares: the drizzle handle and the clock (injectable for tests). */
export interface StoreContext {
  db: BetterSQLite3Database;
  now: () => number;
}
