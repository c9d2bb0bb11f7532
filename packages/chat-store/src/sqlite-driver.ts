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
  /** After each COMMIT that may have written (checkpointer.ts). */
  committed?: () => void;
}

export interface SqliteTransactions {
  driver: TransactionDriver;
  /** Holds every batch until `release` resolves; resolves when no batch runs (group-commit.ts). */
  hold: (release: Promise<void>) => Promise<void>;
}

/**
 * SQLite has one connection per store. Operations and transactions run one at a time in arrival
 * order (nothing outside a transaction slips into it across an `await`) in a shared
 * `BEGIN IMMEDIATE … COMMIT`, a transaction in its own savepoint from its first write, and are
 * answered after that COMMIT (and its sync, for those that wrote). Savepoints nest inside.
 */
export function sqliteDriver(
  sqlite: SqliteConnection,
  db: Db,
  options: SqliteDriverOptions,
): SqliteTransactions {
  // The group commit prepares its own statements at construction: no transaction runs yet then.
  let opened: GroupCommit | undefined;
  const writes = reuseStatements(sqlite, () => opened?.beforeWrite());
  const group = new GroupCommit(sqlite, { ...options, writes });
  opened = group;
  const driver: TransactionDriver = {
    db,
    exclusive: (op) => group.run(op, false),
    losses: () => group.losses,
    begin: (work) => group.run(() => work(db), true),
    savepoint: async (_db, depth, work) => {
      const name = `agentsvc_sp${depth}`;
      group.beforeWrite(); // the transaction's own savepoint first: releasing it releases this one
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
  return { driver, hold: (release) => group.hold(release) };
}
