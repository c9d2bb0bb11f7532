// The outbox sender's read of due pieces. The store answers with the due heads of every gateway (of
// the sender's partitions when it names its share, outbox-partition.ts); those the sender may not
// send now (a held gateway's, another partition's) are left out, and while they fill an answer the
// read asks again for twice as many, so a held gateway's backlog does not starve the others.
import type { OutboxRow } from "./store.js";

/** Up to `want` rows of `read(limit)` that `sendable` accepts. */
export async function sendableDue(
  read: (limit: number) => Promise<OutboxRow[]>,
  sendable: (row: OutboxRow) => boolean,
  want: number,
): Promise<OutboxRow[]> {
  for (let limit = want; ; limit *= 2) {
    const rows = await read(limit);
    const kept = rows.filter(sendable);
    if (kept.length >= want || rows.length < limit) return kept.slice(0, want);
  }
}
