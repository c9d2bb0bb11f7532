// Checkpoints off the event loop. SQLite's automatic checkpoint (every 1000 WAL pages) runs on the
// committing connection and does two fsyncs there, stalling every request. The store's connection
// therefore sets `wal_autocheckpoint = 0`, and after each COMMIT nudges a worker thread
// (checkpoint-worker.ts) that owns a second connection and runs `wal_checkpoint(PASSIVE)` once
// the WAL holds `thresholdFrames` uncopied frames. One request is in flight at a time.
//
// PASSIVE never takes the write lock, so writes go on during it, but a WAL is only reused from its
// start when a write begins after a checkpoint copied every frame. Under steady writes that moment
// may never come and the WAL would grow; so when a checkpoint leaves frames behind, the store holds
// its next batch (the queue waits; the event loop does not) while the worker copies the few frames
// written meanwhile: the next write then restarts the WAL. A checkpoint only copies frames that
// were committed, and syncs the WAL before copying them: durability is unchanged.
import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { CheckpointReport, CheckpointRequest, CheckpointWorkerData } from "./checkpoint-protocol.js";

/** SQLite's own default for `wal_autocheckpoint`. */
export const DEFAULT_CHECKPOINT_FRAMES = 1000;

export interface CheckpointStats {
  /** Checkpoints the worker ran. */
  runs: number;
  /** Frames they copied into the database. */
  framesCopied: number;
  /** Checkpoints run while the store held its writes (to let the WAL restart). */
  catchUps: number;
  /** The last failure (the store then checkpoints on its own connection again), if any. */
  failure: string | undefined;
}

export interface CheckpointerOptions {
  file: string;
  thresholdFrames?: number;
  /** Holds the store's writes until `release` resolves; resolves once no batch is running. */
  holdWrites: (release: Promise<void>) => Promise<void>;
  /** The worker failed: checkpoint on the store's connection again (SQLite's default). */
  fallBack: () => void;
}

/** The compiled worker beside this file (dist), or its source when run from src (tests). */
function workerUrl(): URL {
  const js = new URL("./checkpoint-worker.js", import.meta.url);
  return existsSync(js) ? js : new URL("./checkpoint-worker.ts", import.meta.url);
}

export class Checkpointer {
  readonly stats: CheckpointStats = { runs: 0, framesCopied: 0, catchUps: 0, failure: undefined };
  #worker: Worker | undefined;
  #ready = false;
  /** A request is with the worker. */
  #busy = false;
  /** A commit happened while the worker was busy: check again when it answers. */
  #again = false;
  #release: (() => void) | undefined;
  #exited: Promise<void>;

  constructor(private readonly options: CheckpointerOptions) {
    const data: CheckpointWorkerData = {
      file: options.file,
      thresholdFrames: options.thresholdFrames ?? DEFAULT_CHECKPOINT_FRAMES,
    };
    const worker = new Worker(workerUrl(), { workerData: data });
    worker.unref(); // a store left open does not keep the process alive
    this.#worker = worker;
    worker.on("message", (report: CheckpointReport) => this.#onReport(report));
    worker.on("error", (error) => this.#fail(error.message));
    this.#exited = new Promise((resolve) => worker.once("exit", () => resolve()));
  }

  /** After a COMMIT: asks the worker to look at the WAL (at most one request in flight). */
  committed(): void {
    if (!this.#worker || !this.#ready) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
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
    const worker = this.#worker;
    this.#worker = undefined;
    this.#release?.();
    this.#release = undefined;
    if (!worker) return;
    worker.postMessage({ type: "close" } satisfies CheckpointRequest);
    await this.#exited;
  }
}
