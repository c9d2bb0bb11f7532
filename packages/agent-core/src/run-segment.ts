import type { LogEntry, RunEventLog } from "./event-log.js";
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
    const cursor = this.cursor(after);
    try {
      while (true) {
        const batch = cursor.take();
        if (batch.length > 0) yield batch;
        if (cursor.ended) return;
        if (batch.length === 0) await cursor.changed();
      }
    } finally {
      cursor.close();
    }
  }

  /**
   * A pull-style reader of this segment's events after `after`: `take()` what is buffered,
   * `changed()` or `wake()` to wait for more. What the SSE writer uses: a stream waiting for its
   * next token holds one callback, not an async generator chain (call `close()` when done).
   */
  cursor(after: number = this.firstSeq - 1): EventCursor {
    const log = this.log;
    const segment = this;
    let position = after;
    let open = true;
    log.addReader();
    return {
      visit(max, fn) {
        const last = log.visit(position, segment.endSeq, max, fn);
        const count = last - position;
        position = last;
        return count;
      },
      take(max) {
        const batch = log.since(position, segment.endSeq, max);
        if (batch.length > 0) position = (batch[batch.length - 1] as RunEvent).seq;
        return batch;
      },
      get ended() {
        return position >= segment.endSeq;
      },
      get position() {
        return position;
      },
      changed: () => log.changed(),
      wake: (callback) => log.onNext(callback),
      close() {
        if (!open) return;
        open = false;
        log.removeReader();
      },
    };
  }
}

/** See `RunSegment.cursor`. */
export interface EventCursor {
  /**
   * Buffered events after the cursor (up to the segment's end, at most `max`), advancing it; []
   * when none yet.
   */
  take(max?: number): RunEvent[];
  /**
   * Like `take`, but calls `fn` with each event's seq and fields instead of building envelopes;
   * returns how many it visited.
   */
  visit(max: number, fn: (seq: number, entry: Readonly<LogEntry>) => void): number;
  /** True once every event of the segment has been taken. */
  readonly ended: boolean;
  /** Seq of the last event taken (the `after` given, before any). */
  readonly position: number;
  /** Settles at the next event or at the segment's end. */
  changed(): Promise<void>;
  /** Calls `callback` once, at the next event or at the segment's end (`changed` without a promise). */
  wake(callback: () => void): void;
  /** Done reading (idempotent): the log may pack itself once no reader is left. */
  close(): void;
}
