// The SQLite driver is loaded here, once, at the first open() of a SQLite store (not when the package
// is imported: a PostgreSQL-only project never loads the native module), so that a missing or broken
// better-sqlite3 turns into a ChatDbError at open() that names the store file, instead of an
// anonymous module-resolution crash.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import type { drizzle as drizzleFn } from "drizzle-orm/better-sqlite3";
import { ChatDbError, describeError } from "./errors.js";
import { loadDrizzleSqlite } from "./orm.js";

export type SqliteConnection = BetterSqlite3.Database;

export interface SqliteDriver {
  Database: typeof BetterSqlite3;
  drizzle: typeof drizzleFn;
}

export type DriverLoad =
  | { ok: true; driver: SqliteDriver }
  | { ok: false; moduleName: string; error: string };

const require = createRequire(import.meta.url);

/** Loads the driver (synchronously: open() is). */
export function loadDriver(moduleName = "better-sqlite3"): DriverLoad {
  try {
    const Database = require(moduleName) as typeof BetterSqlite3;
    const drizzleModule = loadDrizzleSqlite();
    return { ok: true, driver: { Database, drizzle: drizzleModule.drizzle } };
  } catch (err) {
    return { ok: false, moduleName, error: describeError(err) };
  }
}

let loaded: DriverLoad | undefined;
/** better-sqlite3, loaded at the first call. */
export const defaultDriver = (): DriverLoad => {
  loaded ??= loadDriver();
  return loaded;
};

/** Opens the file with the loaded driver; every failure names the file and how to fix it. */
export function connect(file: string, load: DriverLoad = defaultDriver()): SqliteConnection {
  if (!load.ok) {
    throw new ChatDbError(
      "driver_missing",
      `${file}: cannot open the chat store: the SQLite driver "${load.moduleName}" could not be loaded (${load.error}). ` +
        `Install it with "pnpm add better-sqlite3" (it must be built for node ${process.versions.node}).`,
    );
  }
  try {
    return new load.driver.Database(file);
  } catch (err) {
    throw new ChatDbError(
      "driver_missing",
      `${file}: cannot open the chat store with better-sqlite3: ${describeError(err)}. ` +
        `If the native module was built for another node version, run "pnpm rebuild better-sqlite3".`,
      { cause: err },
    );
  }
}
