// Messages between the store (checkpointer.ts) and its checkpoint thread (checkpoint-worker.ts).

export interface CheckpointWorkerData {
  /** The database file (its WAL is `<file>-wal`, its wal-index `<file>-shm`). */
  file: string;
  /** A `check` checkpoints once at least this many frames wait in the WAL. */
  thresholdFrames: number;
}

/** `check`: checkpoint if the threshold is passed; `catch-up`: checkpoint now (writes are held); `close`. */
export type CheckpointRequest = { type: "check" | "catch-up" | "close" };

export type CheckpointReport =
  | { type: "ready" }
  | { type: "skipped"; pending: number }
  /**
   * `pending` frames waited before, `copied` went into the database, `left` wait after (the store
   * committed during the checkpoint, or a reader held it back: `busy` 1).
   */
  | { type: "checkpointed"; pending: number; copied: number; busy: number; left: number }
  | { type: "failed"; message: string };
