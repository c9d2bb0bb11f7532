import type { RunEventLog } from "./event-log.js";
import type { RunEvent, RunHandle, RunStatus, TurnResult } from "./run-manager-types.js";
import type { RunOptions } from "./run-store.js";

/**
 * The handle of one stretch of a run: from start (or a resume) until it ends or suspends. A
 * resumed run gets a new segment over the same event log, so seq keeps increasing.
 */
export class RunSegment implements RunHandle {
  status: RunStatus = "running";
  readonly done: Promise<TurnResult>;
  private resolveDone!: (result: TurnResult) => void;
  private endSeq = Number.POSITIVE_INFINITY;

  constructor(
    readonly threadId: string,
    readonly options: RunOptions,
    private readonly log: RunEventLog,
    /** Seq of this segment's first event; `events()` with no argument starts there. */
    readonly firstSeq: number,
  ) {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  get finished(): boolean {
    return this.endSeq !== Number.POSITIVE_INFINITY;
  }

  finish(result: TurnResult): void {
    this.status = result.status;
    this.endSeq = this.log.lastSeq;
    this.log.notify();
    this.resolveDone(result);
  }

  async *events(after: number = this.firstSeq - 1): AsyncGenerator<RunEvent> {
    for await (const batch of this.batches(after)) yield* batch;
  }

  /**
   * Like `events`, but yields every event already buffered as one array, so a writer can send
   * them in one write instead of one per event (a fast model fills the log faster than a
   * per-event reader drains it).
   */
  async *batches(after: number = this.firstSeq - 1): AsyncGenerator<RunEvent[]> {
    this.log.addReader();
    try {
      yield* this.read(after);
    } finally {
      this.log.removeReader();
    }
  }

  private async *read(after: number): AsyncGenerator<RunEvent[]> {
    let cursor = after;
    while (true) {
      let batch = this.log.since(cursor);
      if (batch.length > 0) {
        const last = batch[batch.length - 1] as RunEvent;
        if (last.seq > this.endSeq) batch = batch.filter((event) => event.seq <= this.endSeq);
        if (batch.length > 0) {
          cursor = (batch[batch.length - 1] as RunEvent).seq;
          yield batch;
        }
      }
      if (cursor >= this.endSeq) return;
      if (batch.length === 0) await this.log.changed();
    }
  }
}
