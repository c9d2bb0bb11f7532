// A pass of the outbox sender under a backlog reads several batches of due pieces at once and
// sends them `concurrency` at a time (a wave each), so a backlog costs one due read per
// READ_AHEAD batches, not one per batch (the ingest-pg bench: 0.13 due reads a message, a tenth
// of its statements). Each piece is the head of its own thread, so the order of every thread's
// pieces is kept.

/** Batches read at once by a pass whose previous read came back full. */
export const READ_AHEAD = 4;

/**
 * Sends `rows` `size` at a time, each wave once the one before is over, only the rows `still(row)`
 * accepts as the wave starts: not once the sender stopped (the rest stay pending for its next
 * start), nor a row whose gateway was held meanwhile or whose partition was given up (it stays
 * pending for whoever sends it).
 */
export async function inWaves<R>(
  rows: readonly R[],
  size: number,
  still: (row: R) => boolean,
  send: (row: R) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += size) {
    const wave = rows.slice(i, i + size);
    await Promise.all(wave.filter(still).map(send));
  }
}
