// What a database gives the store: a dialect, its table objects, how to run transactions, its
// health and its schema report. SQLite's is built by ChatDb.open; PostgreSQL's by
// @agentsvc/store-postgres with `poolDriver` below (this package never loads a PostgreSQL driver).
import type { BlobOptions } from "./blobs.js";
import type { CheckpointStats } from "./checkpointer.js";
import type { Db, Dialect, Tables, TransactionDriver } from "./context.js";
import type { MigrationReport } from "./migrations.js";
import type { StoreHealth } from "./store-health.js";
import type { ThrottleOptions } from "./throttle.js";

/** The part of StoreHealth the routes use; a pooled server database answers without probing. */
export type StoreHealthView = Pick<StoreHealth, "retryAfterMs" | "probe" | "admit" | "noteFailure" | "state">;

export interface StoreBackend {
  dialect: Dialect;
  /** Shown in messages: a file path, or `postgres://host:port/db` (never a password). */
  location: string;
  datasource: string;
  migration: MigrationReport;
  tables: Tables;
  driver: TransactionDriver;
  health: StoreHealthView;
  schemaVersion(): number;
  /** SQLite only: the durability the store was opened with. */
  durability?(): "power" | "process";
  /** SQLite only: EXPLAIN QUERY PLAN. */
  explain?(sqlText: string, params: unknown[]): string[];
  /** SQLite only: what the checkpoint thread did so far. */
  checkpoints?(): CheckpointStats;
  close(): void | Promise<void>;
}

/** Options every backend shares (ChatDbOptions holds the SQLite ones besides). */
export interface StoreOptions {
  now?: () => number;
  sessionTimeoutMs?: number;
  throttle?: ThrottleOptions;
  /** Byte cap and retention period of stored files (blobs.ts). */
  blobs?: BlobOptions;
}

/**
 * What poolDriver takes: a drizzle database over a pool (store-postgres' node-postgres one). It has
 * the query builders the table code calls, and transactions that hand out the same kind of handle.
 */
export interface PooledDrizzle {
  select: unknown;
  insert: unknown;
  update: unknown;
  delete: unknown;
  transaction<T>(work: (tx: PooledDrizzle) => Promise<T>): Promise<T>;
}

/**
 * A pooled handle typed as the SQLite handle the shared query code is written against: the same
 * builder methods, over pg tables that mirror the SQLite ones column for column
 * (store-schema's pgTablesAsQueryTables). The code never calls SQLite's synchronous `.run()`,
 * `.get()` or `.all()`, the one place the two differ.
 */
const asQueryDb = (handle: PooledDrizzle): Db => handle as Db;

/**
 * Transactions on a pooled server database (node-postgres drizzle): each top-level transaction
 * takes its own connection, nested ones are savepoints on it, and operations outside any
 * transaction run at once on the pool (the server isolates them; nothing to serialise here), or on
 * `express`, a connection kept apart from the pool, when the caller asks for it.
 */
export function poolDriver(pool: PooledDrizzle, express?: PooledDrizzle): TransactionDriver {
  return {
    db: asQueryDb(pool),
    ...(express && express !== pool ? { express: asQueryDb(express) } : {}),
    exclusive: (op) => op(),
    begin: (work) => pool.transaction((tx) => work(asQueryDb(tx))),
    // `handle` is one begin() handed out: a pooled transaction.
    savepoint: (handle: PooledDrizzle, _depth, work) => handle.transaction((tx) => work(asQueryDb(tx))),
  };
}

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "57P01",
  "57P03",
  "08006",
  "08001",
]);

/**
 * Health of a server database: never probes (a lock wait there does not block the event loop). A
 * connection failure seen by a request makes the next `retryAfterMs` answer "unavailable"
 * (503 + Retry-After) instead of piling requests onto a database that is not there.
 */
export class PoolHealth implements StoreHealthView {
  readonly retryAfterMs = 2000;
  #downUntil = 0;

  constructor(private readonly now: () => number = Date.now) {}

  probe(): boolean {
    return this.now() >= this.#downUntil;
  }

  admit(): number | undefined {
    const wait = this.#downUntil - this.now();
    return wait > 0 ? wait : undefined;
  }

  noteFailure(error: unknown): boolean {
    for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
      const code = (e as { code?: unknown }).code;
      if (typeof code === "string" && UNREACHABLE.has(code)) {
        this.#downUntil = this.now() + this.retryAfterMs;
        return true;
      }
    }
    return false;
  }

  state() {
    return this.probe() ? ("ok" as const) : ("unavailable" as const);
  }
}
