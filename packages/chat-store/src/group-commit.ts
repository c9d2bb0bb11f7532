// Group commit for the SQLite store: logical transactions that arrive while one batch is being
// committed wait, then run one after another inside ONE physical transaction, each inside its own
// savepoint; a failing logical transaction rolls back its savepoint only. With durability `power`
// the COMMIT does not sync (synchronous = NORMAL): the batch's callers that wrote are answered
// after the WAL sync that follows it (wal-sync.ts, on the thread pool, one for the batch), so an
// answer still means "on disk", while the event loop serves reads and the next batch meanwhile.
// A caller that only read is answered after the COMMIT, never held by someone else's sync.
//
// When another process holds the write lock, a batch runs the old way instead: each operation on
// its own (reads still work under WAL), each transaction `BEGIN IMMEDIATE … COMMIT` waiting up to
// the busy timeout, so nothing that only reads waits for a lock it does not need.
import type { SqliteConnection } from "./driver.js";
import { isStoreLocked } from "./store-health.js";

interface Pending {
  work: () => Promise<unknown>;
  /** A `transaction()` (false: one operation outside any transaction). */
  transaction: boolean;
  settle: (outcome: Outcome) => void;
}

export interface GroupCommitOptions {
  busyTimeoutMs: number;
  /**
   * Durability `power`: makes what was committed before the call durable (wal-sync.ts). Absent
   * (`process`): a caller is answered once its COMMIT returned.
   */
  sync?: () => Promise<void>;
  /** How many statements that can write the connection has prepared so far (sqlite-driver.ts). */
  writes: () => number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Logical transactions per physical one at most: a burst (10,000 streams ending together) commits
 * in slices, so the first callers are not held for the whole burst nor their results kept alive.
 */
export const MAX_BATCH = 512;

/** The savepoint around one logical transaction (nested calls use agentsvc_sp<depth>). */
const LOGICAL = "agentsvc_tx";

export class GroupCommit {
  #queue: Pending[] = [];
  #flushing = false;
  #scheduled = false;
  #losses = 0;

  constructor(
    private readonly sqlite: SqliteConnection,
    private readonly options: GroupCommitOptions,
  ) {}

  /**
   * Runs `work` as one logical transaction of the next physical transaction, alone on the
   * connection (FIFO: nothing else runs until it ends). Resolves after the COMMIT holding it and,
   * when it wrote, after the sync that made that COMMIT durable.
   */
  run<T>(work: () => Promise<T>, transaction: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({
        work,
        transaction,
        settle: (outcome) => (outcome.ok ? resolve(outcome.value as T) : reject(outcome.error)),
      });
      // Idle store: flush once the event loop has run the callbacks already due (setImmediate),
      // so the operations that the requests read in the same poll phase share one physical
      // transaction; no timer, nothing waits for more work to arrive.
      if (!this.#flushing && !this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  /**
   * Physical transactions lost or rolled back so far. Moves before any later operation runs, so
   * what an operation read from a batch that was then lost is known to be gone (prompt-cache.ts).
   */
  get losses(): number {
    return this.#losses;
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        let began: boolean;
        try {
          began = this.#tryBegin();
        } catch (error) {
          for (const pending of batch) pending.settle({ ok: false, error });
          continue;
        }
        if (began) await this.#commitBatch(batch);
        else await this.#runAlone(batch);
        // Let the poll phase read the requests that arrived during the commit: they join the next
        // batch instead of each starting one.
        if (this.#queue.length > 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.#flushing = false;
    }
  }

  /**
   * One physical transaction for `batch`; settles every caller after it committed (or failed),
   * the writers after the sync that follows (not awaited here: the next batch runs meanwhile).
   */
  async #commitBatch(batch: Pending[]): Promise<void> {
    const outcomes = new Map<Pending, Outcome>();
    const writers = new Set<Pending>();
    /** Logical transactions that succeeded in the physical transaction currently open. */
    let inOpen: Pending[] = [];
    const lose = (error: unknown) => {
      this.#losses++;
      // The physical transaction ended without our COMMIT: its work is gone, so is every answer.
      for (const p of inOpen) outcomes.set(p, { ok: false, error });
      inOpen = [];
    };
    for (const [i, pending] of batch.entries()) {
      if (i > 0 && !this.sqlite.inTransaction) {
        try {
          this.sqlite.exec("BEGIN IMMEDIATE");
        } catch (error) {
          outcomes.set(pending, { ok: false, error });
          continue;
        }
      }
      try {
        this.sqlite.exec(`SAVEPOINT ${LOGICAL}`);
        const writesBefore = this.options.writes();
        const value = await pending.work();
        if (this.options.writes() !== writesBefore) writers.add(pending);
        this.sqlite.exec(`RELEASE ${LOGICAL}`);
        outcomes.set(pending, { ok: true, value });
        inOpen.push(pending);
      } catch (error) {
        outcomes.set(pending, { ok: false, error });
        if (this.sqlite.inTransaction) {
          try {
            this.sqlite.exec(`ROLLBACK TO ${LOGICAL}`);
            this.sqlite.exec(`RELEASE ${LOGICAL}`);
          } catch (rollbackError) {
            this.#abort();
            lose(rollbackError);
          }
        } else lose(error); // SQLite rolled the whole transaction back (I/O error, disk full, ...)
      }
    }
    if (this.sqlite.inTransaction) {
      try {
        this.sqlite.exec("COMMIT");
      } catch (error) {
        this.#abort();
        lose(error);
      }
    }
    // Answers only now: every logical transaction reported ok is in the committed file. Those
    // that wrote wait for one sync started after the COMMIT (durability power).
    const synced = [...writers].some((p) => outcomes.get(p)?.ok) ? this.options.sync?.() : undefined;
    for (const pending of batch) {
      const outcome = outcomes.get(pending) as Outcome;
      if (synced && outcome.ok && writers.has(pending))
        synced.then(
          () => pending.settle(outcome),
          (error: unknown) => pending.settle({ ok: false, error }),
        );
      else pending.settle(outcome);
    }
  }

  /** BEGIN IMMEDIATE without waiting; false when another process holds the write lock. */
  #tryBegin(): boolean {
    this.sqlite.exec("PRAGMA busy_timeout = 0");
    try {
      this.sqlite.exec("BEGIN IMMEDIATE");
      return true;
    } catch (error) {
      if (isStoreLocked(error)) return false;
      throw error;
    } finally {
      this.sqlite.exec(`PRAGMA busy_timeout = ${this.options.busyTimeoutMs}`);
    }
  }

  /**
   * The write lock is held elsewhere: each logical transaction on its own, answered as it ends
   * (after its own sync when it wrote).
   */
  async #runAlone(batch: Pending[]): Promise<void> {
    for (const pending of batch) {
      try {
        const writesBefore = this.options.writes();
        let value: unknown;
        if (!pending.transaction) value = await pending.work();
        else {
          this.sqlite.exec("BEGIN IMMEDIATE");
          try {
            value = await pending.work();
            this.sqlite.exec("COMMIT");
          } catch (error) {
            this.#abort();
            throw error;
          }
        }
        if (this.options.writes() !== writesBefore) await this.options.sync?.();
        pending.settle({ ok: true, value });
      } catch (error) {
        pending.settle({ ok: false, error });
      }
    }
  }

  #abort(): void {
    this.#losses++;
    try {
      if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
    } catch {
      // Already rolled back by SQLite.
    }
  }
}
