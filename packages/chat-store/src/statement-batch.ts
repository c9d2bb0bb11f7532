// Statements grouped on PostgreSQL: items that arrive while one statement is in flight wait for it,
// then go together in the next one; an item on an idle store goes at once (with those added in the
// same tick). One flush at a time, batches in arrival order, at most `maxItems` items a statement.
// Each statement commits on its own (autocommit), so a caller is answered only after the statement
// holding its item has committed, exactly as with one statement per item.
//
// Errors: a statement that fails for a batch of several is run again for each item alone (the
// server refuses a whole statement for one bad row), so a failure reaches only the callers whose
// own statement failed; the others get their results.

/** Runs one statement for `items` (in arrival order); returns one result per item, in that order. */
export type RunStatement<I, R> = (items: I[]) => Promise<R[]>;

interface Waiting<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export class StatementBatch<I, R> {
  #waiting: Waiting<I, R>[] = [];
  #flushing = false;

  constructor(
    private readonly run: RunStatement<I, R>,
    private readonly maxItems: number,
  ) {}

  /** Settles with this item's result once the statement holding it has committed, or its error. */
  add(item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        // A microtask, not a timer: items added in the same tick share the first statement.
        queueMicrotask(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    try {
      while (this.#waiting.length > 0) await this.#commit(this.#waiting.splice(0, this.maxItems));
    } finally {
      this.#flushing = false;
    }
  }

  async #commit(batch: Waiting<I, R>[]): Promise<void> {
    let results: R[];
    try {
      results = await this.run(batch.map((w) => w.item));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      await Promise.all(batch.map((w) => this.#commit([w])));
      return;
    }
    // A caller's bug, not the server's answer: the statement ran, so it is not run again.
    if (results.length !== batch.length) {
      const error = new Error(`statement batch: ${results.length} results for ${batch.length} items`);
      for (const w of batch) w.reject(error);
      return;
    }
    for (const [i, w] of batch.entries()) w.resolve(results[i]!);
  }
}
