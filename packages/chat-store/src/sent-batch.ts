// Outbox pieces marked sent on PostgreSQL, grouped (statement-batch.ts): marks that arrive while
// one UPDATE is in flight go together in one `UPDATE ... WHERE id IN (...) AND status = 'pending'
// RETURNING id` (the sender sends up to its concurrency of pieces at once, and each one's mark
// followed in its own statement).
import { StatementBatch } from "./statement-batch.js";

export interface SentMark {
  id: number;
  platformId: string | null;
}

/** Marks the rows sent where they are pending; returns the ids it changed. */
export type MarkRows = (marks: SentMark[]) => Promise<number[]>;

/** Well below PostgreSQL's 65,535 parameters (three per row). */
const MAX_ROWS = 500;

/** `add(mark)` answers whether this caller moved its row from pending to sent. */
export function sentBatch(update: MarkRows): StatementBatch<SentMark, boolean> {
  return new StatementBatch(async (marks) => {
    const changed = new Set(await update(marks));
    // The same id twice in one statement: the first caller moved it, the second finds it sent.
    return marks.map((m) => changed.delete(m.id));
  }, MAX_ROWS);
}
