// How a SQLite store runs transactions: one connection, `BEGIN IMMEDIATE … COMMIT` on it, and a
// lock that keeps every other operation out until the transaction ends.
import { type Db, SerialLock, type TransactionDriver } from "./context.js";
import type { SqliteConnection } from "./driver.js";

/**
 * SQLite has one connection per store: a transaction is `BEGIN IMMEDIATE … COMMIT` on it, and
 * every other operation waits (in order) until it ends, so nothing outside the transaction can
 * slip into it across an `await`. Savepoints nest inside.
 */
export function sqliteDriver(sqlite: SqliteConnection, db: Db): TransactionDriver {
  const lock = new SerialLock();
  return {
    db,
    exclusive: (op) => lock.run(op),
    begin: (work) =>
      lock.run(async () => {
        sqlite.exec("BEGIN IMMEDIATE");
        try {
          const result = await work(db);
          sqlite.exec("COMMIT");
          return result;
        } catch (error) {
          if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
          throw error;
        }
      }),
    savepoint: async (_db, depth, work) => {
      const name = `agentsvc_sp${depth}`;
      sqlite.exec(`SAVEPOINT ${name}`);
      try {
        const result = await work(db);
        sqlite.exec(`RELEASE ${name}`);
        return result;
      } catch (error) {
        sqlite.exec(`ROLLBACK TO ${name}`);
        sqlite.exec(`RELEASE ${name}`);
        throw error;
      }
    },
  };
}
