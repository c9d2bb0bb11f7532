// Outbox pieces marked sent on PostgreSQL, grouped: marks that arrive while one UPDATE is in flight
// wait for it, then go together in one `UPDATE ... WHERE id IN (...) AND status = 'pending'
// RETURNING id` (the sender sends up to its concurrency of pieces at once, and each one's mark
// followed in its own statement). Each statement commits on its own, so a caller is answered only
// after the statement holding its row has committed, exactly as with one statement per mark.

export interface SentMark {
  id: number;
  platformId: string | null;
}

/** Marks the rows sent where they are pending; returns the ids it changed. */
export type MarkRows = (marks: SentMark[]) => Promise<number[]>;

interface Waiting {
  mark: SentMark;
  resolve(changed: boolean): void;
  reject(error: unknown): void;
}

/** Well below PostgreSQL's 65,535 parameters (three per row). */
const MAX_ROWS = 500;

export class SentBatch {
  #waiting: Waiting[] = [];
  #flushing = false;

  constructor(private readonly update: MarkRows) {}

  mark(mark: SentMark): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ mark, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        queueMicrotask(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    try {
      while (this.#waiting.length > 0) await this.#commit(this.#waiting.splice(0, MAX_ROWS));
    } finally {
      this.#flushing = false;
    }
  }

  async #commit(batch: Waiting[]): Promise<void> {
    let changed: number[];
    try {
      changed = await this.update(batch.map((w) => w.mark));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      // One refused row fails the statement: each alone, so only its caller fails.
      await Promise.all(batch.map((w) => this.#commit([w])));
      return;
    }
    const ids = new Set(changed);
    // The same id twice in one statement: the first caller moved it, the second finds it sent.
    for (const w of batch) {
      w.resolve(ids.delete(w.mark.id));
    }
  }
}
