// How a SQLite store runs transactions: one connection, and group commit (group-commit.ts) around
// it: every operation and transaction is a logical transaction of the next physical one.
import type { Db, TransactionDriver } from "./context.js";
import type { SqliteConnection } from "./driver.js";
import { GroupCommit } from "./group-commit.js";
import { reuseStatements } from "./statement-cache.js";

export interface SqliteDriverOptions {
  busyTimeoutMs: number;
  /** Durability `power`: the WAL sync a writer waits for after its COMMIT (wal-sync.ts). */
  sync?: () => Promise<void>;
}

/**
 * SQLite has one connection per store. Operations and transactions run one at a time in arrival
 * order (nothing outside a transaction slips into it across an `await`), each in its own savepoint
 * of a shared `BEGIN IMMEDIATE … COMMIT`, and are answered after that COMMIT (and its sync, for
 * those that wrote). Savepoints nest inside.
 */
export function sqliteDriver(
  sqlite: SqliteConnection,
  db: Db,
  options: SqliteDriverOptions,
): TransactionDriver {
  const group = new GroupCommit(sqlite, { ...options, writes: reuseStatements(sqlite) });
  return {
    db,
    exclusive: (op) => group.run(op, false),
    losses: () => group.losses,
    begin: (work) => group.run(() => work(db), true),
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
