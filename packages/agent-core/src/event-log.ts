import type { ChunkEnvelope } from "./chunk.js";
import type { RunEvent } from "./run-manager-types.js";

/**
 * Every chunk of one thread's run, numbered, kept so a reconnecting client can replay what it
 * missed (`events(after)`). Readers wait on `changed()` for the next push or segment end.
 *
 * A run's events stay replayable for `retainMs` after it ends. Kept as objects, a busy server
 * holds hundreds of thousands of small chunk objects that every major GC must mark, so once the
 * run has ended and no reader is left (`retire`), the log is packed into one JSON string and
 * parsed back only if someone replays it.
 */
export class RunEventLog {
  private buffer: RunEvent[] = [];
  private packed: { firstSeq: number; chunks: string } | undefined;
  private waiters: (() => void)[] = [];
  private next: number;
  private readers = 0;
  private retired = false;

  constructor(firstSeq = 1) {
    this.next = firstSeq;
  }

  get lastSeq(): number {
    return this.next - 1;
  }

  push(chunk: ChunkEnvelope): RunEvent {
    if (this.packed) this.unpack();
    this.retired = false;
    const event = { seq: this.next++, chunk };
    this.buffer.push(event);
    this.notify();
    return event;
  }

  since(after: number): RunEvent[] {
    const buffer = this.packed ? this.unpacked() : this.buffer;
    // seq values are contiguous, so the start index is arithmetic.
    const first = buffer[0]?.seq ?? this.next;
    return buffer.slice(Math.max(0, after + 1 - first));
  }

  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** A reader (`events`/`batches`) started; the log stays unpacked while one is active. */
  addReader(): void {
    this.readers++;
  }

  removeReader(): void {
    this.readers--;
    if (this.retired && this.readers === 0) this.pack();
  }

  /** The run's current stretch has ended: pack now, or when the last reader is done. */
  retire(): void {
    this.retired = true;
    if (this.readers === 0) this.pack();
  }

  private pack(): void {
    if (this.packed || this.buffer.length === 0) return;
    const firstSeq = (this.buffer[0] as RunEvent).seq;
    this.packed = { firstSeq, chunks: JSON.stringify(this.buffer.map((event) => event.chunk)) };
    this.buffer = [];
  }

  private unpacked(): RunEvent[] {
    const { firstSeq, chunks } = this.packed as { firstSeq: number; chunks: string };
    return (JSON.parse(chunks) as ChunkEnvelope[]).map((chunk, i) => ({ seq: firstSeq + i, chunk }));
  }

  private unpack(): void {
    this.buffer = this.unpacked();
    this.packed = undefined;
  }
}
