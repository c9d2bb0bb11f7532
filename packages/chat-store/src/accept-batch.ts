// Inbox accepts on PostgreSQL, grouped: accepts that arrive while one INSERT is in flight wait for
// it, then go together in one multi-row `INSERT ... ON CONFLICT DO NOTHING RETURNING`. Each
// statement commits on its own (autocommit), so a caller is answered only after the statement
// holding its row has committed, exactly as with one statement per accept; an accept on an idle
// store goes at once, alone. One round trip (a socket write and a wake-up on both sides, a parse
// and a plan on the server) then serves a whole burst instead of each message.

/** One inbox row as the accept writes it. */
export interface AcceptRow {
  gateway: string;
  dedupKey: string;
  thread: string;
  text: string;
  origin: string;
  status: "queued";
  receivedAt: number;
}

export type AcceptResult = { accepted: true; id: number } | { accepted: false; duplicate: true };

/** Inserts rows, skipping (gateway, dedupKey) pairs that exist; returns the rows it inserted. */
export type InsertRows = (rows: AcceptRow[]) => Promise<{ id: number; gateway: string; dedupKey: string }[]>;

interface Waiting {
  row: AcceptRow;
  resolve(result: AcceptResult): void;
  reject(error: unknown): void;
}

/** Statements stay well below PostgreSQL's 65,535 parameters (7 per row). */
const MAX_ROWS = 500;

const keyOf = (gateway: string, dedupKey: string) => `${gateway}\u0000${dedupKey}`;

export class AcceptBatch {
  #waiting: Waiting[] = [];
  #flushing = false;

  constructor(private readonly insert: InsertRows) {}

  accept(row: AcceptRow): Promise<AcceptResult> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ row, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        // A microtask, not a timer: accepts made in the same tick share the first statement.
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
    let inserted: Awaited<ReturnType<InsertRows>>;
    try {
      inserted = await this.insert(batch.map((w) => w.row));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      // A row the server refuses fails the whole statement: each row alone, so only its caller fails.
      await Promise.all(batch.map((w) => this.#commit([w])));
      return;
    }
    const ids = new Map(inserted.map((r) => [keyOf(r.gateway, r.dedupKey), r.id]));
    // The same key twice in one statement: the first in arrival order was inserted, the rest repeat it.
    for (const w of batch) {
      const key = keyOf(w.row.gateway, w.row.dedupKey);
      const id = ids.get(key);
      ids.delete(key);
      w.resolve(id === undefined ? { accepted: false, duplicate: true } : { accepted: true, id });
    }
  }
}
