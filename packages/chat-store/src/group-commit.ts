// Group commit for the SQLite store: logical transactions that arrive while one batch is being
// committed wait, then run one after another inside ONE physical transaction; a `transaction()`
// opens its own savepoint at its first write, and a failing one rolls back that savepoint only. A
// single operation needs none: like a statement run alone, it is atomic by itself (a failed
// statement undoes only itself), and a transaction that only reads has nothing to undo. With durability `power`
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
  /** After each COMMIT that may have written (the checkpointer looks at the WAL, checkpointer.ts). */
  committed?: () => void;
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
  /** While set, no batch starts (hold()). */
  #held: Promise<void> | undefined;
  /** Resolves hold()'s caller once the running batch has ended. */
  #atGate: (() => void) | undefined;
  /** The logical transaction running in a batch: a transaction() wants its savepoint at its first write. */
  #current: { transaction: boolean; savepoint: boolean } | undefined;
  /** Prepared once: sqlite3_exec parses the text again at each call. */
  readonly #sql: Record<"begin" | "commit" | "savepoint" | "release" | "rollbackTo", { run(): unknown }>;

  constructor(
    private readonly sqlite: SqliteConnection,
    private readonly options: GroupCommitOptions,
  ) {
    this.#sql = {
      begin: sqlite.prepare("BEGIN IMMEDIATE"),
      commit: sqlite.prepare("COMMIT"),
      savepoint: sqlite.prepare(`SAVEPOINT ${LOGICAL}`),
      release: sqlite.prepare(`RELEASE ${LOGICAL}`),
      rollbackTo: sqlite.prepare(`ROLLBACK TO ${LOGICAL}`),
    };
  }

  /**
   * Before a statement that can write runs (statement-cache.ts hands it out), and before a nested
   * savepoint opens: the running transaction's own savepoint opens now, once.
   */
  beforeWrite(): void {
    const current = this.#current;
    if (!current?.transaction || current.savepoint) return;
    this.#sql.savepoint.run();
    current.savepoint = true;
  }

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
   * How often written work was undone so far: a physical transaction lost or rolled back, or a
   * logical transaction's savepoint rolled back. Moves before any later operation runs, so what an
   * operation read or wrote in a batch and was then undone is known to be gone (prompt-cache.ts).
   */
  get losses(): number {
    return this.#losses;
  }

  /**
   * No batch starts until `release` resolves (callers keep queueing; the event loop is not held).
   * Resolves once the batch running now, if any, has ended: nothing writes until `release`.
   */
  hold(release: Promise<void>): Promise<void> {
    const held: Promise<void> = release.then(() => {
      if (this.#held === held) this.#held = undefined;
    });
    this.#held = held;
    if (!this.#flushing) return Promise.resolve();
    return new Promise((resolve) => {
      this.#atGate = resolve;
    });
  }

  #openGate(): void {
    this.#atGate?.();
    this.#atGate = undefined;
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        while (this.#held) {
          this.#openGate();
          await this.#held;
        }
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
      this.#openGate();
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
          this.#sql.begin.run();
        } catch (error) {
          outcomes.set(pending, { ok: false, error });
          continue;
        }
      }
      const current = { transaction: pending.transaction, savepoint: false };
      this.#current = current;
      try {
        const writesBefore = this.options.writes();
        const value = await pending.work();
        if (this.options.writes() !== writesBefore) writers.add(pending);
        // A statement of its own ended the physical transaction (a ROLLBACK): what the batch did
        // so far is gone (a RELEASE used to fail there; an operation has no savepoint now).
        if (!this.sqlite.inTransaction) throw new Error("the store's transaction ended inside an operation");
        if (current.savepoint) this.#sql.release.run();
        outcomes.set(pending, { ok: true, value });
        inOpen.push(pending);
      } catch (error) {
        outcomes.set(pending, { ok: false, error });
        if (!this.sqlite.inTransaction)
          lose(error); // SQLite rolled the whole transaction back (I/O error, disk full, ...)
        else if (current.savepoint) {
          this.#losses++; // its writes are undone below
          try {
            this.#sql.rollbackTo.run();
            this.#sql.release.run();
          } catch (rollbackError) {
            this.#abort();
            lose(rollbackError);
          }
        }
      } finally {
        this.#current = undefined;
      }
    }
    if (this.sqlite.inTransaction) {
      try {
        this.#sql.commit.run();
        if (writers.size > 0) this.options.committed?.();
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
      this.#sql.begin.run();
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
        if (this.options.writes() !== writesBefore) {
          this.options.committed?.();
          await this.options.sync?.();
        }
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
