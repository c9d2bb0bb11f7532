// The checkpointer's thread (checkpointer.ts starts it): its own better-sqlite3 connection to the
// store, so SQLite's checkpoint (copy WAL frames into the database file, with an fsync of the WAL
// before and of the database after) never runs on the event loop. It only ever runs PASSIVE
// checkpoints, which take neither the write lock nor wait for readers: the store's BEGIN IMMEDIATE
// never waits for this thread.
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import type { CheckpointReport, CheckpointRequest, CheckpointWorkerData } from "./checkpoint-protocol.js";

const { file, thresholdFrames } = workerData as CheckpointWorkerData;
const port = parentPort;
if (!port) throw new Error("checkpoint-worker.ts runs as a worker thread");

const db = new Database(file);
db.pragma("wal_autocheckpoint = 0"); // this connection never writes; set for clarity
// A checkpoint syncs the WAL before copying and the database after (synchronous >= NORMAL).
db.pragma("synchronous = FULL");

const header = Buffer.alloc(100);
const shmFile = `${file}-shm`;

/**
 * Frames in the WAL not yet copied into the database, read from the wal-index header without a
 * lock (https://www.sqlite.org/walformat.html: mxFrame at byte 16, nBackfill at 96, native byte
 * order). A torn read only changes when the next checkpoint starts; the checkpoint itself reads the
 * header under SQLite's locks.
 */
function walIndex(): { frames: number; backfilled: number } {
  const fd = openSync(shmFile, "r");
  try {
    if (readSync(fd, header, 0, 100, 0) < 100) return { frames: 0, backfilled: 0 };
  } finally {
    closeSync(fd);
  }
  const le = endianness() === "LE";
  return {
    frames: le ? header.readUInt32LE(16) : header.readUInt32BE(16),
    backfilled: le ? header.readUInt32LE(96) : header.readUInt32BE(96),
  };
}

const pendingOf = (index: { frames: number; backfilled: number }) =>
  Math.max(0, index.frames - index.backfilled);

/**
 * One PASSIVE checkpoint. SQLite's `log` is the WAL as the checkpoint saw it when it began; what
 * the store committed meanwhile shows in the wal-index afterwards (`left`).
 */
function passive(before: { frames: number; backfilled: number }): CheckpointReport {
  const [row] = db.pragma("wal_checkpoint(PASSIVE)") as { busy: number; log: number; checkpointed: number }[];
  const after = walIndex();
  // The store restarts the WAL (backfilled back to 0) only after a checkpoint that left nothing.
  const copied =
    after.backfilled >= before.backfilled ? after.backfilled - before.backfilled : after.backfilled;
  return {
    type: "checkpointed",
    pending: pendingOf(before),
    copied,
    busy: row?.busy ?? 0,
    left: pendingOf(after),
  };
}

port.on("message", (request: CheckpointRequest) => {
  if (request.type === "close") {
    // The store's own connection is closed first: this one is the last, and SQLite's checkpoint
    // at close (which removes the WAL) runs here too.
    db.close();
    port.close();
    return;
  }
  let report: CheckpointReport;
  try {
    const before = walIndex();
    const pending = pendingOf(before);
    // A checkpoint ran but the WAL was not restarted after it (the store began a write while it
    // ran): copy the few frames since now, before the WAL grows on past its restart point.
    const unrestarted = before.backfilled > 0 && pending > 0;
    if (request.type === "check" && pending < thresholdFrames && !unrestarted)
      report = { type: "skipped", pending };
    else report = passive(before);
  } catch (error) {
    report = { type: "failed", message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(report);
});
port.postMessage({ type: "ready" } satisfies CheckpointReport);
