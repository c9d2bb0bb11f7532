import type { ChunkEnvelope } from "./chunk.js";
import type { RunEvent } from "./run-manager-types.js";

/**
 * Every chunk of one thread's run, numbered, kept so a reconnecting client can replay what it
 * missed (`events(after)`). Readers wait on `changed()` for the next push or segment end.
 */
export class RunEventLog {
  private readonly buffer: RunEvent[] = [];
  private waiters: (() => void)[] = [];
  private next: number;

  constructor(firstSeq = 1) {
    this.next = firstSeq;
  }

  get lastSeq(): number {
    return this.next - 1;
  }

  push(chunk: ChunkEnvelope): RunEvent {
    const event = { seq: this.next++, chunk };
    this.buffer.push(event);
    this.notify();
    return event;
  }

  since(after: number): RunEvent[] {
    // seq values are contiguous, so the start index is arithmetic.
    const first = this.buffer[0]?.seq ?? this.next;
    return this.buffer.slice(Math.max(0, after + 1 - first));
  }

  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
