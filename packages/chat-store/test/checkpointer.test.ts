import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { readWalIndex } from "../src/checkpointer.js";
import { type ChatDb, isStoreLocked } from "../src/index.js";
import { openStore, tempRoot } from "./helpers.js";

/** About 3 pages per preference. */
const BODY = "x".repeat(12_000);
const pkg = resolve(import.meta.dirname, "..");

/** Frames the WAL file has room for (a 32-byte header, then a 24-byte header and a page each). */
function walFrames(db: ChatDb): number {
  return (statSync(`${db.file}-wal`).size - 32) / (24 + 4096);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Until the checkpoint thread has answered for the last commit (or there is no thread). */
function settled(db: ChatDb): Promise<void> {
  return until(() => db.checkpoints?.inFlight === false, "the checkpoint thread's answer");
}

describe("checkpoints on a worker thread (SQLite)", () => {
  it("the store's connection never checkpoints itself: wal_autocheckpoint reads 0 on it", () => {
    const db = openStore({ path: "./chat.db" });
    // The store's own connection is not reachable from outside; its setting shows through explain's
    // connection, which is that one.
    const raw = (db as unknown as { backend: { driver: { db: { $client: Database.Database } } } }).backend
      .driver.db.$client;
    expect(raw.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
  });

  it("starts no checkpoint thread until the WAL first holds the threshold's frames, then checkpoints there", async () => {
    const db = openStore({ path: "./chat.db", checkpointFrames: 200 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => db.preferences.set("u", `small-${i}`, i)));
    expect(db.checkpoints?.thread).toBe(false);
    for (let round = 0; round < 4; round++)
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => db.preferences.set("u", `k${round}-${i}`, BODY)),
      );
    await until(() => (db.checkpoints?.runs ?? 0) > 0, "the first checkpoint");
    expect(db.checkpoints?.thread).toBe(true);
    expect(db.checkpoints?.failure).toBeUndefined();
  });

  it("once the thread runs, commits that leave the WAL under the threshold send it no request; one that fills it does", async () => {
    const db = openStore({ path: "./chat.db", checkpointFrames: 200 });
    await Promise.all(Array.from({ length: 100 }, (_, i) => db.preferences.set("u", `first-${i}`, BODY)));
    await until(() => (db.checkpoints?.runs ?? 0) > 0, "the first checkpoint");
    const checks = db.checkpoints?.checks ?? 0;
    // 30 commits of a page or two each: one per commit before (a message and its answer each).
    for (let i = 0; i < 30; i++) await db.preferences.set("u", `small-${i}`, i);
    // At most the one the first checkpoint may still owe (frames written while it ran).
    expect((db.checkpoints?.checks ?? 0) - checks).toBeLessThanOrEqual(1);
    const runs = db.checkpoints?.runs ?? 0;
    await Promise.all(Array.from({ length: 100 }, (_, i) => db.preferences.set("u", `again-${i}`, BODY)));
    await until(() => (db.checkpoints?.runs ?? 0) > runs, "a checkpoint once the WAL filled again");
    expect(db.checkpoints?.checks).toBeGreaterThan(checks);
    expect(db.checkpoints?.failure).toBeUndefined();
  });

  it("a close awaited as a process's last work settles: the thread is waited for, the process does not end first", () => {
    // Three children: without the wait the race was lost in 2 of 3 (exit 13, never "closed").
    for (let i = 0; i < 3; i++) {
      const child = spawnSync(
        process.execPath,
        [
          join(pkg, "test/fixtures/checkpoint-close-child.mjs"),
          pathToFileURL(join(pkg, "dist/index.js")).href,
          tempRoot(),
        ],
        { cwd: pkg, encoding: "utf8", timeout: 60_000 },
      );
      expect({ status: child.status, stdout: child.stdout }).toEqual({ status: 0, stdout: "closed\n" });
    }
  }, 120_000);

  it("after many writes the WAL file stays under the threshold plus one round: each round starts with fewer uncopied frames than the threshold", async () => {
    const threshold = 200;
    const db = openStore({ path: "./chat.db", checkpointFrames: threshold });
    // A round is 50 preferences of ~3 pages: ~155 frames as one group commit, 300 as 50 commits.
    const roundFrames = 300;
    const shm = openSync(`${db.file}-shm`, "r");
    const header = Buffer.alloc(100);
    const uncopied = () => {
      const { frames, backfilled } = readWalIndex(shm, header);
      return frames - backfilled;
    };
    try {
      await Promise.all(Array.from({ length: 50 }, (_, i) => db.preferences.set("u", `first-${i}`, BODY)));
      for (let round = 0; round < 30; round++) {
        // How far writes get past the threshold while a check or checkpoint is with the thread
        // depends on when the thread runs (a loaded CI run reached ~2,490 frames): so each round
        // waits for its answer, and the bound below does not depend on scheduling.
        await settled(db);
        expect(uncopied(), `uncopied frames before round ${round}`).toBeLessThan(threshold);
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            db.preferences.set("u", `k${round}-${i}`, { body: BODY, round }),
          ),
        );
      }
      await settled(db);
    } finally {
      closeSync(shm);
    }
    // SQLite reuses the WAL file from its start and never shrinks it: its size is the most frames
    // it held. A round starts under the threshold (or restarts the WAL) and adds at most a round.
    // Without checkpoints it holds ~4,900 frames (1,550 preferences, 19 MiB).
    expect(walFrames(db)).toBeLessThan(threshold + roundFrames);
    const stats = db.checkpoints;
    expect(stats?.failure).toBeUndefined();
    expect(stats?.runs).toBeGreaterThan(0);
    // All but the last round's frames (under the threshold) were copied into the database.
    expect(stats?.framesCopied).toBeGreaterThan(4500);
    expect(Object.keys(await db.preferences.getAll("u"))).toHaveLength(1550);
  });

  for (const mode of ["PASSIVE", "FULL"] as const)
    it(`while a ${mode} checkpoint runs in another process, store writes ${mode === "PASSIVE" ? "are answered (it takes no write lock)" : "fail busy (control: it holds the write lock)"}`, async () => {
      // busy timeout 0: a write that needs a lock someone else holds fails at once instead of waiting.
      const db = openStore({ path: "./chat.db", busyTimeoutMs: 0, checkpointFrames: 1_000_000 });
      const stopFile = join(dirname(db.file), "stop-checkpoints");
      for (let round = 0; round < 16; round++)
        await Promise.all(
          Array.from({ length: 100 }, (_, i) => db.preferences.set("u", `a${round}-${i}`, BODY)),
        );
      const child = spawn(
        process.execPath,
        [
          "-e",
          `const D = require("better-sqlite3"); const db = new D(process.argv[1]);
           db.prepare("SELECT count(*) FROM preferences").get(); // opened (any WAL recovery is done)
           process.stdout.write("START\\n");
           let n = 0; // checkpoints one after another until the test has written enough meanwhile
           while (!require("node:fs").existsSync(process.argv[2])) { db.pragma("wal_checkpoint(${mode})"); n++; }
           process.stdout.write("DONE " + n + "\\n");
           setTimeout(() => db.close(), 60_000);`,
          db.file,
          stopFile,
        ],
        { cwd: pkg, stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d));
      // Writes one after another from before the checkpoints start until after they ended (enough
      // answers while they run, then the child is told to stop); each answer is classified by what
      // the child had said by then.
      const outcomes: string[] = [];
      const phase = () => (out.includes("DONE") ? "after" : out.includes("START") ? "during" : "before");
      try {
        for (let i = 0; phase() !== "after"; i++) {
          await db.preferences.set("u", `b${i}`, i).then(
            () => outcomes.push(phase()),
            (error: unknown) =>
              outcomes.push(
                isStoreLocked(error)
                  ? `busy ${phase()} ${(error as { code?: string }).code} ${String(error)}`
                  : String(error),
              ),
          );
          // PASSIVE: 20 answers while it runs. The control runs until the first write refused
          // while it runs (at most 2,000 answers): between two checkpoints the write lock is free,
          // and under load 20 writes could all land in those gaps (CI, load ~20: none refused).
          const during = outcomes.filter((o) => o.includes("during"));
          const enough =
            mode === "PASSIVE"
              ? during.length >= 20
              : during.some((o) => o.startsWith("busy")) || during.length >= 2_000;
          if (enough) writeFileSync(stopFile, "");
          await new Promise((r) => setImmediate(r)); // let the child's output in
        }
        // Only answers while the checkpoint ran count: a process opening the file may run WAL
        // recovery before START, which also refuses writers for a moment (SQLITE_BUSY_RECOVERY).
        const refusedDuring = outcomes.filter((o) => o.startsWith("busy during") || o.startsWith("Sqlite"));
        if (mode === "PASSIVE") {
          expect(refusedDuring).toEqual([]);
          expect(outcomes.filter((o) => o === "during").length).toBeGreaterThanOrEqual(20);
        } else expect(refusedDuring.length).toBeGreaterThan(0);
      } finally {
        child.kill("SIGKILL");
      }
    });
});
