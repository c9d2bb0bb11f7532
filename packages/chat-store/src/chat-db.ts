// ChatDb: the store's tables over one backend. `open` gives the embedded default, one SQLite file
// per webui entry (or per named datasource), opened synchronously: resolve path -> load driver ->
// pragmas -> migrations; any failure names the file. `fromBackend` takes another database.
import { pino } from "pino";
import { Accounts } from "./accounts.js";
import type { StoreBackend, StoreHealthView, StoreOptions } from "./backend.js";
import { type Dialect, type StoreContext, createContext } from "./context.js";
import { Conversations } from "./conversations.js";
import { type DriverLoad, connect, defaultDriver } from "./driver.js";
import { ChatDbError, describeError } from "./errors.js";
import { GatewayState } from "./gateway-state.js";
import { Inbox } from "./inbox.js";
import { Outbox } from "./outbox.js";
import { SeenTokens } from "./seen-tokens.js";
import { Reminders } from "./reminders.js";
import { ScheduleTicks } from "./schedules.js";
import { SenderAccess } from "./sender-access.js";
import { UsageLedger } from "./usage-ledger.js";
import { type BlobOptions, BlobStore } from "./blobs.js";
import { Interactions } from "./interactions.js";
import { type CreateMemoryOptions, SqliteMemory } from "./memory.js";
import { type MigrationReport, type MigrationStep, readSchemaVersion, runMigrations } from "./migrations.js";
import { type DatasourceConfig, DEFAULT_DATASOURCE, checkDatasource, resolveStorePath } from "./paths.js";
import { Preferences } from "./preferences.js";
import { sqliteTables } from "@agentsvc/store-schema/sqlite";
import { SqliteRunStore } from "./run-store.js";
import { sqliteDriver } from "./sqlite-driver.js";
import { type AccountConfig, type AuthLogger, type SeedReport, seedAccounts } from "./seed-accounts.js";
import { DEFAULT_SESSION_TIMEOUT_MS, Sessions } from "./sessions.js";
import { StoreHealth } from "./store-health.js";
import { Throttle, type ThrottleOptions } from "./throttle.js";
import { type FlushFd, WalSync } from "./wal-sync.js";
import { type CheckpointStats, Checkpointer, DEFAULT_CHECKPOINT_FRAMES } from "./checkpointer.js";

export interface StoreLogger {
  info(obj: object, msg: string): void;
}

export interface ChatDbOptions {
  /** `database.path`, relative to `appRoot`. Default `./data/chat.db`. */
  path?: string;
  /** Absolute app root the path is resolved against. */
  appRoot: string;
  /** `database.datasource`. Default `agentsvc` (the built-in SQLite datasource). */
  datasource?: string;
  /** Named datasources from the project config; only `type: "sqlite"` is accepted. */
  datasources?: Readonly<Record<string, DatasourceConfig>>;
  /** Config file the options came from, used to prefix error messages (e.g. `gateways/web.yaml`). */
  source?: string;
  /** Receives one line per applied migration step. */
  logger?: StoreLogger;
  /** Clock in ms since the epoch (tests inject one). Default Date.now. */
  now?: () => number;
  /** Sliding session idle timeout. Default 60 minutes. */
  sessionTimeoutMs?: number;
  throttle?: ThrottleOptions;
  /**
   * SQLite busy timeout for concurrent writers (other processes). Default 1000 ms. Every wait
   * blocks the event loop, so callers probe with `health` first instead of leaning on it.
   */
  busyTimeoutMs?: number;
  /**
   * `power` (default): every answered write survives power loss (the WAL is synced after each
   * group commit, off the event loop, before its writers are answered). `process`:
   * `synchronous = NORMAL` (WAL) alone: survives a crash of the process, may lose the last commits
   * on power loss or an OS crash, and answers without waiting for the disk.
   */
  durability?: StoreDurability;
  /** @internal tests: replaces fdatasync(2) of the WAL file (durability `power`). */
  flushWal?: FlushFd;
  /** @internal tests: WAL frames that start a checkpoint (default 1000, SQLite's own). */
  checkpointFrames?: number;
  /** @internal tests: a subset of the migration steps (to build old stores). */
  migrations?: readonly MigrationStep[];
  /** @internal tests: a different driver load result. */
  driver?: DriverLoad;
  /** Byte cap and retention period of stored files (blobs.ts). */
  blobs?: BlobOptions;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 1000;

export type StoreDurability = "power" | "process";

const DURABILITIES: readonly StoreDurability[] = ["power", "process"];

function durabilityOf(options: ChatDbOptions, file: string): StoreDurability {
  const durability = options.durability ?? "power";
  if (!DURABILITIES.includes(durability))
    throw new ChatDbError(
      "invalid_durability",
      `${options.source ? `${options.source}: ` : ""}store.durability: must be power or process (got ${JSON.stringify(durability)}) for ${file}`,
    );
  return durability;
}

function busyTimeoutOf(options: ChatDbOptions): number {
  return Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS));
}

export class ChatDb {
  /** Where the data lives: the SQLite file's absolute path, or the PostgreSQL address (no password). */
  readonly file: string;
  readonly dialect: Dialect;
  readonly datasource: string;
  readonly conversations: Conversations;
  readonly preferences: Preferences;
  readonly accounts: Accounts;
  readonly sessions: Sessions;
  readonly throttle: Throttle;
  readonly runStore: SqliteRunStore;
  readonly inbox: Inbox;
  readonly interactions: Interactions;
  readonly outbox: Outbox;
  readonly gatewayState: GatewayState;
  readonly seenTokens: SeenTokens;
  /** Pairing codes, approved senders and rate-limit windows (sender access, #40). */
  readonly senderAccess: SenderAccess;
  /** Claimed schedule ticks and the operator's pauses (schedules, #41). */
  readonly scheduleTicks: ScheduleTicks;
  /** Reminders set from conversations with the remind tool (#41). */
  readonly reminders: Reminders;
  /** One row per model call with its tokens and cost (the cost ledger, #40). */
  readonly usageLedger: UsageLedger;
  /** Stored files: attachments and files of replies, content-addressed (#46). */
  readonly blobs: BlobStore;
  /** Whether the store can be read and written right now (never waits); see store-health.ts. */
  readonly health: StoreHealthView;
  /** What open() did to the schema. */
  readonly migration: MigrationReport;
  /** SQLite: `power` (answers after the WAL sync) or `process` (after the COMMIT); see README. */
  readonly durability: StoreDurability | undefined;
  /** SQLite: what the checkpoint thread did so far (checkpointer.ts); undefined on PostgreSQL. */
  get checkpoints(): Readonly<CheckpointStats> | undefined {
    return this.backend.checkpoints?.();
  }
  private readonly ctx: StoreContext;
  private closed = false;

  private constructor(
    private readonly backend: StoreBackend,
    options: StoreOptions,
  ) {
    this.file = backend.location;
    this.dialect = backend.dialect;
    this.datasource = backend.datasource;
    this.migration = backend.migration;
    this.durability = backend.durability?.();
    this.ctx = createContext(backend.dialect, backend.tables, backend.driver, options.now ?? Date.now);
    this.health = backend.health;
    this.conversations = new Conversations(this.ctx);
    this.preferences = new Preferences(this.ctx);
    this.accounts = new Accounts(this.ctx);
    this.sessions = new Sessions(
      this.ctx,
      options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
      this.health,
    );
    this.throttle = new Throttle(this.ctx, options.throttle);
    this.runStore = new SqliteRunStore(this.ctx);
    this.outbox = new Outbox(this.ctx);
    this.inbox = new Inbox(this.ctx, this.outbox);
    this.interactions = new Interactions(this.ctx);
    this.gatewayState = new GatewayState(this.ctx);
    this.seenTokens = new SeenTokens(this.ctx);
    this.senderAccess = new SenderAccess(this.ctx);
    this.scheduleTicks = new ScheduleTicks(this.ctx);
    this.reminders = new Reminders(this.ctx);
    this.usageLedger = new UsageLedger(this.ctx);
    this.blobs = new BlobStore(this.ctx, options.blobs);
  }

  /**
   * Runs `fn` in one write transaction (nested calls become savepoints): every store call made
   * inside it, by any code it awaits, commits together or not at all. Other operations on this
   * store wait until it ends, so keep it to store work (no network calls inside).
   */
  transaction<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.ctx.transaction(async () => fn());
  }

  /** Whether the caller runs inside a transaction of this store (its store calls join it). */
  inTransaction(): boolean {
    return this.ctx.inTransaction();
  }

  /** Opens (creating when absent) and migrates the store. Throws ChatDbError naming the file. */
  static open(options: ChatDbOptions): ChatDb {
    const datasource = options.datasource ?? DEFAULT_DATASOURCE;
    checkDatasource(datasource, options.datasources, options.source);
    const file = resolveStorePath(options.appRoot, options.path, options.source);
    const durability = durabilityOf(options, file);
    const load = options.driver ?? defaultDriver();
    const sqlite = connect(file, load);
    try {
      sqlite.pragma(`busy_timeout = ${busyTimeoutOf(options)}`);
      // A new file (a first start) switches to WAL unsynced: the switch is a rollback-journal
      // transaction of 4 fsyncs, and power lost during it leaves a store with nothing in it (#45).
      if (sqlite.pragma("page_count", { simple: true }) === 0) sqlite.pragma("synchronous = OFF");
      sqlite.pragma("journal_mode = WAL");
      // Migrations commit with FULL under durability power; afterwards the group commit syncs the
      // WAL itself, off the event loop (wal-sync.ts).
      sqlite.pragma(`synchronous = ${durability === "power" ? "FULL" : "NORMAL"}`);
      sqlite.pragma("foreign_keys = ON");
    } catch (err) {
      sqlite.close();
      throw new ChatDbError("open_failed", `${file}: cannot open the chat store: ${describeError(err)}`, {
        cause: err,
      });
    }
    let migration: MigrationReport;
    try {
      migration = runMigrations(sqlite, { file, steps: options.migrations, now: options.now });
    } catch (err) {
      sqlite.close();
      throw err;
    }
    // One line per start that changed the schema (a first start applies every step).
    const { from, to, applied } = migration;
    if (applied.length) {
      options.logger?.info(
        { file, from, to, applied },
        from === 0
          ? `chat store created at schema version ${to}`
          : `chat store migrated from schema version ${from} to ${to} (${applied.length} step${applied.length === 1 ? "" : "s"})`,
      );
    }
    if (!load.ok) throw new Error("unreachable: connect() refuses a failed driver load");
    const db = load.driver.drizzle(sqlite);
    // NORMAL: a COMMIT appends to the WAL without waiting for the disk. Under power, each group
    // commit's writers wait for walSync instead (a sync on the thread pool, not the event loop).
    sqlite.pragma("synchronous = NORMAL");
    const walSync = durability === "power" ? new WalSync(file, options.flushWal) : undefined;
    // Checkpoints run on a worker thread's connection, never on this one (checkpointer.ts).
    sqlite.pragma("wal_autocheckpoint = 0");
    const transactions = sqliteDriver(sqlite, db, {
      busyTimeoutMs: busyTimeoutOf(options),
      ...(walSync ? { sync: () => walSync.request() } : {}),
      committed: () => checkpointer.committed(),
    });
    const checkpointer: Checkpointer = new Checkpointer({
      file,
      thresholdFrames: options.checkpointFrames,
      holdWrites: transactions.hold,
      fallBack: () => {
        if (sqlite.open)
          sqlite.pragma(`wal_autocheckpoint = ${options.checkpointFrames ?? DEFAULT_CHECKPOINT_FRAMES}`);
      },
    });
    return new ChatDb(
      {
        dialect: "sqlite",
        location: file,
        datasource,
        migration,
        tables: sqliteTables,
        driver: transactions.driver,
        health: new StoreHealth(sqlite, busyTimeoutOf(options)),
        schemaVersion: () => readSchemaVersion(sqlite),
        durability: () => durability,
        explain: (sqlText, params) =>
          (sqlite.prepare(`EXPLAIN QUERY PLAN ${sqlText}`).all(...params) as { detail: string }[]).map(
            (row) => row.detail,
          ),
        checkpoints: () => checkpointer.stats,
        close: async () => {
          sqlite.close();
          await Promise.all([walSync?.close(), checkpointer.close()]);
        },
      },
      options,
    );
  }

  /**
   * A store on another database (PostgreSQL through `@agentsvc/store-postgres`): the same tables
   * and behaviour over the backend's drizzle handle, migrated by the backend before this call.
   */
  static fromBackend(backend: StoreBackend, options: StoreOptions = {}): ChatDb {
    return new ChatDb(backend, options);
  }

  /** The highest applied migration step. */
  schemaVersion(): number {
    return this.backend.schemaVersion();
  }

  /** A durable Memory scoped by (userId, conversationId). Same as `memory(options)`. */
  createMemory(options: CreateMemoryOptions): SqliteMemory {
    return new SqliteMemory(this.ctx, options);
  }

  /** Alias of createMemory. */
  readonly memory = (options: CreateMemoryOptions): SqliteMemory => this.createMemory(options);

  /**
   * Boot-time account seeding from the entry's `users` (after migrations, before the sign-in
   * gate). Warnings go to `logger`, by default a pino logger named `webui-auth`.
   */
  seedAccounts(
    users: readonly AccountConfig[],
    env: Readonly<Record<string, string | undefined>> = process.env,
    logger: AuthLogger = pino({ name: "webui-auth" }),
    options: { iterations?: number } = {},
  ): Promise<SeedReport> {
    return seedAccounts(this.ctx, this.accounts, users, env, logger, options);
  }

  /** Read-only EXPLAIN QUERY PLAN access for diagnostics and tests (SQLite only). */
  explain(sqlText: string, ...params: unknown[]): string[] {
    if (!this.backend.explain) throw new ChatDbError("unsupported", `${this.file}: explain is SQLite-only`);
    return this.backend.explain(sqlText, params);
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Closes the connection (a PostgreSQL pool ends in the background; await `closed` for it). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#closing = Promise.resolve(this.backend.close());
  }

  #closing: Promise<void> = Promise.resolve();

  /** Settles when `close()` has finished. */
  get closedSettled(): Promise<void> {
    return this.#closing;
  }
}
