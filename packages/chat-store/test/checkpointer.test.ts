import { spawn, spawnSync } from "node:child_process";
import { statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { type ChatDb, isStoreLocked } from "../src/index.js";
import { openStore, tempRoot } from "./helpers.js";

/** About 3 pages per preference. */
const BODY = "x".repeat(12_000);
const pkg = resolve(import.meta.dirname, "..");

function walBytes(db: ChatDb): number {
  return statSync(`${db.file}-wal`).size;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
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

  it("after many writes the WAL stays bounded and the worker's checkpoint counter moves", async () => {
    const db = openStore({ path: "./chat.db", checkpointFrames: 200 });
    const pageSize = 4096 + 24;
    let maxWal = 0;
    // The worker needs a moment to start (its first checkpoint then catches up with this round).
    await Promise.all(Array.from({ length: 50 }, (_, i) => db.preferences.set("u", `first-${i}`, BODY)));
    await until(() => (db.checkpoints?.runs ?? 0) > 0, "the first checkpoint");
    for (let round = 0; round < 30; round++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          db.preferences.set("u", `k${round}-${i}`, { body: BODY, round }),
        ),
      );
      maxWal = Math.max(maxWal, walBytes(db));
    }
    // 1,500 preferences of ~3 pages each: without checkpoints the WAL holds >= 4,500 frames (18 MiB).
    const stats = db.checkpoints;
    expect(stats?.failure).toBeUndefined();
    expect(stats?.runs).toBeGreaterThan(0);
    expect(stats?.framesCopied).toBeGreaterThan(3000); // the last frames wait for the next threshold
    // How far past the threshold it gets depends on how fast the worker thread is scheduled
    // (writes go on during a check and a checkpoint): a loaded CI machine saw ~2,490 pages, so
    // the bound is two thirds of the unbounded WAL's 4,500 frames, which it stays clearly under.
    expect(maxWal).toBeLessThan(3000 * pageSize);
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
      // Writes one after another from before the checkpoints start until after they ended (20
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
          if (outcomes.filter((o) => o.includes("during")).length >= 20) writeFileSync(stopFile, "");
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
