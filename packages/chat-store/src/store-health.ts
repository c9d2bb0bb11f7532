// Is the store file reachable right now? better-sqlite3 is synchronous: an operation that meets a
// lock held by another process waits up to the busy timeout *on the event loop*, stalling every
// request. So callers ask first, with probes that never wait (busy timeout 0 for one statement),
// and a lock error seen once makes later callers probe instead of waiting again.
import type { SqliteConnection } from "./driver.js";

export type StoreAccess = "read" | "write";

/** `read-only`: another process holds the write lock; reads still work (WAL). */
export type StoreState = "ok" | "read-only" | "unavailable";

/** True for SQLite's "database is locked/busy" errors (also when wrapped as a cause). */
export function isStoreLocked(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")))
      return true;
  }
  return false;
}

export class StoreHealth {
  /** Suggested wait before a retry, in ms (the `Retry-After` of a refusal). */
  readonly retryAfterMs: number;
  private tripped = false;
  private readonly restoreTimeout: string;
  private readonly begin: { run(): unknown };
  private readonly rollback: { run(): unknown };
  private readonly read: { get(): unknown };

  constructor(
    private readonly sqlite: SqliteConnection,
    busyTimeoutMs: number,
    options: { retryAfterMs?: number } = {},
  ) {
    this.retryAfterMs = options.retryAfterMs ?? 2000;
    this.restoreTimeout = `PRAGMA busy_timeout = ${busyTimeoutMs}`;
    this.begin = sqlite.prepare("BEGIN IMMEDIATE");
    this.rollback = sqlite.prepare("ROLLBACK");
    this.read = sqlite.prepare("SELECT count(*) FROM sqlite_master");
  }

  /** Can `access` happen right now? Never waits (a few µs). */
  probe(access: StoreAccess): boolean {
    // Inside our own transaction (synchronous code cannot interleave) the lock is ours already.
    if (this.sqlite.inTransaction) return true;
    // exec, not a prepared statement: SQLite applies busy_timeout when the pragma is compiled.
    this.sqlite.exec("PRAGMA busy_timeout = 0");
    try {
      if (access === "read") this.read.get();
      else {
        this.begin.run();
        this.rollback.run();
      }
      return true;
    } catch (error) {
      if (isStoreLocked(error)) return false;
      throw error;
    } finally {
      this.sqlite.exec(this.restoreTimeout);
    }
  }

  /**
   * Undefined when a request needing `access` may go ahead, else the ms to wait. Writes are always
   * probed (a held write lock is the common external lock); reads only after a lock error was seen.
   */
  admit(access: StoreAccess): number | undefined {
    if (access === "read" && !this.tripped) return undefined;
    if (this.probe(access)) {
      if (access === "read" || this.probe("read")) this.tripped = false;
      return undefined;
    }
    return this.retryAfterMs;
  }

  /** Records an operation's failure; true when it was a lock error (callers then answer 503). */
  noteFailure(error: unknown): boolean {
    if (!isStoreLocked(error)) return false;
    this.tripped = true;
    return true;
  }

  /** The store's state by probing both kinds of access (for `/health`). */
  state(): StoreState {
    if (!this.probe("read")) return "unavailable";
    return this.probe("write") ? "ok" : "read-only";
  }
}
