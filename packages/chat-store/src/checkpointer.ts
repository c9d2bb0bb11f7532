// Checkpoints off the event loop. SQLite's automatic checkpoint (every 1000 WAL pages) runs on the
// committing connection and does two fsyncs there, stalling every request. The store's connection
// therefore sets `wal_autocheckpoint = 0`, and after a COMMIT nudges a worker thread
// (checkpoint-worker.ts) that owns a second connection and runs `wal_checkpoint(PASSIVE)` once
// the WAL holds `thresholdFrames` uncopied frames. One request is in flight at a time. The store
// reads the wal-index header after its commits and asks the thread only when it would checkpoint
// (a message to the thread and its answer per commit cost more than the read). The thread starts
// only when the WAL first reaches that size: a store that never fills it, as most test stores and
// small projects, costs no thread, and start-up pays for none.
//
// PASSIVE never takes the write lock, so writes go on during it, but a WAL is only reused from its
// start when a write begins after a checkpoint copied every frame. Under steady writes that moment
// may never come and the WAL would grow; so when a checkpoint leaves frames behind, the store holds
// its next batch (the queue waits; the event loop does not) while the worker copies the few frames
// written meanwhile: the next write then restarts the WAL. A checkpoint only copies frames that
// were committed, and syncs the WAL before copying them: durability is unchanged.
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";
import { Worker } from "node:worker_threads";
import type { CheckpointReport, CheckpointRequest, CheckpointWorkerData } from "./checkpoint-protocol.js";

/** SQLite's own default for `wal_autocheckpoint`. */
export const DEFAULT_CHECKPOINT_FRAMES = 1000;

export interface CheckpointStats {
  /** Whether the checkpoint thread was started (once the WAL first reached the threshold). */
  thread: boolean;
  /** Checkpoints the worker ran. */
  runs: number;
  /** Requests sent to the thread after commits (only when the WAL index showed a checkpoint due). */
  checks: number;
  /** Frames they copied into the database. */
  framesCopied: number;
  /** Checkpoints run while the store held its writes (to let the WAL restart). */
  catchUps: number;
  /** The last failure (the store then checkpoints on its own connection again), if any. */
  failure: string | undefined;
  /**
   * The thread is starting, or a check or catch-up is with it: the WAL may not yet be what the
   * last commit asks for. Once false, and until the next commit, the WAL holds fewer uncopied
   * frames than the threshold (tests read the WAL only then: how far writes outrun the thread
   * depends on scheduling).
   */
  readonly inFlight: boolean;
}

export interface CheckpointerOptions {
  file: string;
  thresholdFrames?: number;
  /** Holds the store's writes until `release` resolves; resolves once no batch is running. */
  holdWrites: (release: Promise<void>) => Promise<void>;
  /** The worker failed: checkpoint on the store's connection again (SQLite's default). */
  fallBack: () => void;
}

/**
 * The wal-index header's frame counts, read from the open `<file>-shm` into `header` (100 bytes):
 * mxFrame (byte 16) and nBackfill (byte 96), native byte order; zeros before the header exists.
 * checkpoint-worker.ts keeps its own copy: run from source (tests), a thread imports no sibling's
 * `.js`, which Node does not resolve to the `.ts`.
 */
export function readWalIndex(shm: number, header: Buffer): { frames: number; backfilled: number } {
  if (readSync(shm, header, 0, 100, 0) < 100) return { frames: 0, backfilled: 0 };
  const le = endianness() === "LE";
  return {
    frames: le ? header.readUInt32LE(16) : header.readUInt32BE(16),
    backfilled: le ? header.readUInt32LE(96) : header.readUInt32BE(96),
  };
}

/** The compiled worker beside this file (dist), or its source when run from src (tests). */
function workerUrl(): URL {
  const js = new URL("./checkpoint-worker.js", import.meta.url);
  return existsSync(js) ? js : new URL("./checkpoint-worker.ts", import.meta.url);
}

export class Checkpointer {
  readonly stats: CheckpointStats;
  #worker: Worker | undefined;
  #ready = false;
  /** A request is with the worker. */
  #busy = false;
  /** A commit happened while the worker was busy: check again when it answers. */
  #again = false;
  #release: (() => void) | undefined;
  #exited: Promise<void> = Promise.resolve();
  /** The wal-index (`<file>-shm`), read after commits. */
  #shm: number | undefined;
  readonly #header = Buffer.alloc(100);
  readonly #threshold: number;
  #closed = false;

  constructor(private readonly options: CheckpointerOptions) {
    this.#threshold = options.thresholdFrames ?? DEFAULT_CHECKPOINT_FRAMES;
    const checkpointer = this;
    this.stats = {
      thread: false,
      runs: 0,
      checks: 0,
      framesCopied: 0,
      catchUps: 0,
      failure: undefined,
      // Read from the state itself, so it cannot drift from it (no worker: closed or failed).
      get inFlight() {
        return checkpointer.#worker !== undefined && (checkpointer.#busy || !checkpointer.#ready);
      },
    };
  }

  /** The thread checkpoints from now on (started once the first checkpoint is due). */
  #start(): void {
    const data: CheckpointWorkerData = { file: this.options.file, thresholdFrames: this.#threshold };
    const worker = new Worker(workerUrl(), { workerData: data });
    worker.unref(); // a store left open does not keep the process alive
    this.#worker = worker;
    this.stats.thread = true;
    worker.on("message", (report: CheckpointReport) => this.#onReport(report));
    worker.on("error", (error) => this.#fail(error.message));
    this.#exited = new Promise((resolve) => worker.once("exit", () => resolve()));
  }

  /**
   * Whether a check would checkpoint, as the worker decides it: the WAL holds the threshold's
   * uncopied frames (mxFrame, byte 16, less nBackfill, byte 96, of the wal-index header, native byte
   * order: https://www.sqlite.org/walformat.html), or a checkpoint copied some but the WAL was not
   * restarted after it and has frames since. Read without a lock: a torn or stale read only moves
   * the check to a later commit (this connection wrote the frames it counts).
   */
  #due(): boolean {
    this.#shm ??= openSync(`${this.options.file}-shm`, "r");
    const { frames, backfilled } = readWalIndex(this.#shm, this.#header);
    const pending = Math.max(0, frames - backfilled);
    return pending >= this.#threshold || (backfilled > 0 && pending > 0);
  }

  #closeShm(): void {
    if (this.#shm !== undefined) closeSync(this.#shm);
    this.#shm = undefined;
  }

  /** After a COMMIT: asks the worker to look at the WAL (at most one request in flight). */
  committed(): void {
    if (this.#closed || this.stats.failure !== undefined) return;
    if (this.#worker && !this.#ready) return; // its `ready` checks
    if (this.#busy) {
      this.#again = true;
      return;
    }
    try {
      if (!this.#due()) return;
    } catch (error) {
      this.#fail(error instanceof Error ? error.message : String(error));
      return;
    }
    if (!this.#worker) {
      this.#start();
      return; // its `ready` checks
    }
    this.stats.checks++;
    this.#send({ type: "check" });
  }

  #send(request: CheckpointRequest): void {
    this.#busy = request.type !== "close";
    this.#again = false;
    this.#worker?.postMessage(request);
  }

  #onReport(report: CheckpointReport): void {
    if (report.type === "ready") {
      this.#ready = true;
      this.committed(); // the migrations at open may already have filled the WAL
      return;
    }
    this.#busy = false;
    const release = this.#release;
    this.#release = undefined;
    release?.();
    if (report.type === "failed") {
      this.#fail(report.message);
      return;
    }
    if (report.type === "checkpointed") {
      this.stats.runs++;
      this.stats.framesCopied += report.copied;
      if (release) this.stats.catchUps++;
      else if (report.busy === 0 && report.left > 0) {
        // Frames were written during the checkpoint: copy them with the writes held, once.
        this.#catchUp();
        return;
      }
    }
    if (this.#again) this.committed();
  }

  #catchUp(): void {
    this.#busy = true;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#release = release;
    void this.options.holdWrites(released).then(() => {
      if (this.#worker) this.#send({ type: "catch-up" });
      else release();
    });
  }

  #fail(message: string): void {
    if (this.stats.failure !== undefined) return;
    this.stats.failure = message;
    try {
      this.#closeShm();
    } catch {
      // Nothing to close.
    }
    this.#release?.();
    this.#release = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.terminate();
    this.options.fallBack();
  }

  /**
   * After the store's connection closed: the worker closes its connection (the last one, so
   * SQLite's checkpoint at close runs there) and exits.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closeShm();
    const worker = this.#worker;
    this.#worker = undefined;
    this.#release?.();
    this.#release = undefined;
    if (!worker) return;
    // Referenced while it closes: an unreferenced thread does not keep the event loop alive, so a
    // process whose only work left is awaiting this close (a test file's fork after its last
    // test, a script's final await) ended mid-close, the awaited promise never settled (exit 13).
    worker.ref();
    worker.postMessage({ type: "close" } satisfies CheckpointRequest);
    await this.#exited;
  }
}
