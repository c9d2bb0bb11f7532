// What every table API shares: how to run a statement (inside the caller's transaction when there
// is one), how to open a transaction, and the clock. The table code is written once, with awaited
// drizzle queries, and runs on SQLite (better-sqlite3) and PostgreSQL (node-postgres) alike.
import { AsyncLocalStorage } from "node:async_hooks";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type { SqliteTables } from "@agentsvc/store-schema/sqlite";
import { type PgQuery, pgRows, withClauses } from "./pg-writes.js";

/**
 * The table objects queries are built from: SQLite's or PostgreSQL's (@agentsvc/store-schema), which mirror them
 * column for column under the same property names (typed as SQLite's: the query code is shared).
 */
export type Tables = SqliteTables;

/**
 * The drizzle handle the table code builds queries with. On PostgreSQL it is a node-postgres
 * drizzle database whose tables mirror the SQLite ones column for column (same property names),
 * so the same awaited query code runs on both; only `.run()`, `.get()` and `.all()` (SQLite-only
 * synchronous forms) must not be used.
 */
export type Db = BetterSQLite3Database;

export type Dialect = "sqlite" | "postgres";

export interface StoreContext {
  readonly dialect: Dialect;
  readonly tables: Tables;
  now(): number;
  /** Whether the caller runs inside a transaction of this store (its operations join it). */
  inTransaction(): boolean;
  /** One operation: inside the current transaction when the caller is in one, else on its own. */
  run<T>(op: (db: Db) => Promise<T>): Promise<T>;
  /** As `run`, outside a transaction on the driver's `express` connection when it has one. */
  express<T>(op: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in one transaction: every store call made inside it (by any code it awaits) commits
   * together or not at all. Nested calls become savepoints.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * PostgreSQL, inside a transaction: a write whose answer nobody reads, kept to travel with the
   * transaction's next statement (`runCarrying`) instead of a round trip of its own. Any other
   * statement, a savepoint or the end of the transaction sends it first, on its own, so every later
   * statement still sees it. Outside a transaction it runs at once. PostgreSQL only.
   */
  carry(write: PgQuery): Promise<void>;
  /**
   * One statement that takes the carried writes with it (as data-modifying WITH clauses of its own
   * text: `op` gets them and must include them all). Outside a transaction nothing is carried.
   * `last`: the caller writes nothing more in this transaction. On PostgreSQL, when nothing was sent
   * in it yet (BEGIN is sent with its first statement), the statement then commits on its own: a
   * transaction of one statement, with no BEGIN and COMMIT round trips. Any statement asked for in
   * the transaction after it is refused (it could no longer be part of it). `op`'s `alone`: its
   * statement commits on its own (no transaction open on its connection), so it may share a
   * statement with others' (inbox.ts groups turn ends).
   */
  runCarrying<T>(
    op: (db: Db, carried: PgQuery[], alone: boolean) => Promise<T>,
    options?: { last?: boolean },
  ): Promise<T>;
  /**
   * SQLite: how many physical transactions were lost or rolled back so far; it moves before the
   * next operation runs. Rows an operation read may have been uncommitted writes of its batch: a
   * copy kept of them is good only while this has not moved. PostgreSQL: always 0.
   */
  losses(): number;
}

interface Scope {
  /** The transaction's handle, opening it first (PostgreSQL: BEGIN is sent with its first statement). */
  begin(): Promise<Db>;
  /** Whether anything was sent in the transaction yet (a savepoint's is its parent's). */
  begun(): boolean;
  /** False once the transaction ended: work it started later (a timer) runs on its own again. */
  open: boolean;
  depth: number;
  /** Writes waiting for the next statement (PostgreSQL: `carry`). */
  carried: PgQuery[];
  /** Its last statement committed on its own (`runCarrying` with `last`): nothing more may be sent. */
  sealed: boolean;
}

/** Sends carried writes as one statement on `db` (several as WITH clauses of one). */
async function sendCarried(scope: Scope, db?: Db): Promise<void> {
  const writes = scope.carried.splice(0);
  if (writes.length === 0) return;
  const last = writes.pop() as PgQuery;
  await pgRows(db ?? (await scope.begin()), withClauses(writes, undefined, last));
}

/** A transaction's handle once it may send: refused after its last statement committed on its own. */
function handleOf(scope: Scope): Promise<Db> {
  if (scope.sealed)
    throw new Error("transaction: a statement after its last one, which already committed on its own");
  return scope.begin();
}

/** How a driver opens transactions and keeps operations from interleaving with one. */
export interface TransactionDriver {
  /** Root handle for operations outside any transaction. */
  readonly db: Db;
  /** A connection of its own for statements that must not queue behind the others (PostgreSQL). */
  readonly express?: Db;
  /** Runs an operation outside a transaction (SQLite: after any open transaction has ended). */
  exclusive<T>(op: () => Promise<T>): Promise<T>;
  /** Runs `work` inside a new top-level transaction on its handle. */
  begin<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** Runs `work` inside a savepoint of the open transaction `db`. */
  savepoint<T>(db: Db, depth: number, work: (db: Db) => Promise<T>): Promise<T>;
  /** SQLite: physical transactions lost or rolled back so far (group-commit.ts). */
  losses?(): number;
}

export function createContext(
  dialect: Dialect,
  tables: Tables,
  driver: TransactionDriver,
  now: () => number,
): StoreContext {
  const scopes = new AsyncLocalStorage<Scope>();
  const current = () => {
    const scope = scopes.getStore();
    return scope?.open ? scope : undefined;
  };
  const enter = async <T>(db: Db, depth: number, fn: () => Promise<T>): Promise<T> => {
    const begin = () => Promise.resolve(db);
    const scope: Scope = { begin, begun: () => true, open: true, depth, carried: [], sealed: false };
    try {
      const result = await scopes.run(scope, fn);
      // Before the savepoint's release or the commit: the transaction holds every write it made.
      await sendCarried(scope);
      return result;
    } finally {
      scope.open = false;
    }
  };
  /**
   * PostgreSQL: a top-level transaction that sends BEGIN (takes a pooled connection) only with its
   * first statement. One whose writes were all carried ends as one statement on its own (atomic by
   * itself), or, with `runCarrying`'s `last`, as that statement.
   */
  const deferred = async <T>(fn: () => Promise<T>): Promise<T> => {
    let end!: (failure?: { error: unknown }) => void;
    const ended = new Promise<{ error: unknown } | undefined>((r) => {
      end = r;
    });
    let opening: Promise<Db> | undefined;
    let outcome: Promise<void> | undefined;
    const begin = () => {
      opening ??= new Promise<Db>((resolve, reject) => {
        outcome = driver.begin(async (db) => {
          resolve(db);
          const failure = await ended;
          if (failure) throw failure.error; // ROLLBACK
        });
        outcome.catch(reject); // BEGIN itself failed: the statements waiting for it fail too
      });
      return opening;
    };
    const scope: Scope = {
      begin,
      begun: () => opening !== undefined,
      open: true,
      depth: 0,
      carried: [],
      sealed: false,
    };
    try {
      const result = await scopes.run(scope, fn);
      await sendCarried(scope, opening ? await opening : driver.db);
      end();
      await outcome; // COMMIT
      return result;
    } catch (error) {
      end({ error });
      await outcome?.catch(() => undefined);
      throw error;
    } finally {
      scope.open = false;
    }
  };
  const ctx: StoreContext = {
    dialect,
    tables,
    now,
    inTransaction: () => current() !== undefined,
    losses: () => driver.losses?.() ?? 0,
    async run(op) {
      const scope = current();
      if (!scope) return driver.exclusive(() => op(driver.db));
      const db = await handleOf(scope);
      if (scope.carried.length > 0) await sendCarried(scope, db);
      return op(db);
    },
    async express(op) {
      const scope = current();
      const lane = driver.express;
      if (scope) return ctx.run(op);
      return lane ? op(lane) : driver.exclusive(() => op(driver.db));
    },
    async transaction(fn) {
      const scope = current();
      if (!scope) return dialect === "postgres" ? deferred(fn) : driver.begin((db) => enter(db, 0, fn));
      const db = await handleOf(scope);
      if (scope.carried.length > 0) await sendCarried(scope, db);
      return driver.savepoint(db, scope.depth + 1, (tx) => enter(tx, scope.depth + 1, fn));
    },
    async carry(write) {
      if (dialect !== "postgres") throw new TypeError("carry: a PostgreSQL statement on a SQLite store");
      const scope = current();
      if (scope) {
        if (scope.sealed) await handleOf(scope); // refused
        scope.carried.push(write);
        return;
      }
      await ctx.run((db) => pgRows(db, write));
    },
    async runCarrying(op, options) {
      const scope = current();
      if (!scope) return driver.exclusive(() => op(driver.db, [], true));
      if (options?.last && !scope.begun() && !scope.sealed) {
        // Nothing sent yet and nothing to follow: this statement is the whole transaction.
        scope.sealed = true;
        return op(driver.db, scope.carried.splice(0), true);
      }
      return op(await handleOf(scope), scope.carried.splice(0), false);
    },
  };
  return ctx;
}
