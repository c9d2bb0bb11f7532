import { spawn } from "node:child_process";
import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, readSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openStore, tempRoot } from "./helpers.js";

const pkg = resolve(import.meta.dirname, "..");
const ROUNDS = 6;

/**
 * Runs the child until READY, lets it commit for `runMs`, then SIGKILLs it: at once, or (`midSync`)
 * as soon as its next WAL sync starts, so that committed frames are not yet on disk.
 */
async function runAndKill(
  root: string,
  journal: string,
  round: number,
  runMs: number,
  midSync: boolean,
): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      join(pkg, "test/fixtures/group-commit-child.mjs"),
      pathToFileURL(join(pkg, "dist/index.js")).href,
      root,
      journal,
      String(round),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  try {
    await new Promise<void>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`child not ready after 20 s; stderr: ${err}`)), 20_000);
      child.stdout.on("data", (d: Buffer) => {
        if (d.toString().includes("READY")) {
          clearTimeout(timer);
          ok();
        }
      });
      child.once("exit", (code) => fail(new Error(`child exited with ${code}; stderr: ${err}`)));
    });
    await new Promise((r) => setTimeout(r, runMs));
    if (midSync)
      await new Promise<void>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error("no WAL sync within 20 s")), 20_000);
        child.stdout.on("data", (d: Buffer) => {
          if (d.toString().includes("SYNCING")) {
            clearTimeout(timer);
            ok();
          }
        });
      });
  } finally {
    child.kill("SIGKILL");
  }
  await new Promise((r) => (child.exitCode !== null || child.signalCode ? r(null) : child.once("exit", r)));
  expect(child.signalCode).toBe("SIGKILL");
}

/**
 * Power loss after the kill: the WAL keeps only what the last finished sync covered (the child
 * journals "synced <size> <salt>"); a WAL SQLite restarted since then (another salt) keeps its
 * header only. Returns the bytes cut.
 */
function losePower(wal: string, synced: { size: number; salt: string } | undefined): number {
  if (!existsSync(wal)) return 0;
  const fd = openSync(wal, "r+");
  try {
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    const salt = header.subarray(16, 20).toString("hex");
    const size = readFileSync(wal).length;
    const keep = synced && synced.salt === salt ? Math.min(size, synced.size) : Math.min(size, 32);
    ftruncateSync(fd, keep);
    return size - keep;
  } finally {
    closeSync(fd);
    rmSync(`${wal.slice(0, -"-wal".length)}-shm`, { force: true });
  }
}

describe("group commit under SIGKILL", () => {
  // The child imports the built package (dist/): `pnpm build` runs before the tests, as for restart.test.ts.

  it("after a kill and a power loss during group commits, every caller answered ok finds its data and no caller answered with an error does", async () => {
    const root = tempRoot();
    const journal = join(root, "journal.log");
    let inFlightAtKill = 0;
    let cut = 0;
    let linesBefore = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      await runAndKill(root, journal, round, 40 + round * 37, round % 2 === 0);
      const lines = readFileSync(journal, "utf8").split("\n").filter(Boolean);
      const started = new Set<string>();
      const ok = new Set<string>();
      const failed = new Set<string>();
      let synced: { size: number; salt: string } | undefined;
      for (const [i, line] of lines.entries()) {
        const [what, key, salt] = line.split(" ") as [string, string, string];
        if (what === "synced") {
          if (i >= linesBefore) synced = { size: Number(key), salt };
        } else if (what === "start") started.add(key);
        else (what === "ok" ? ok : failed).add(key);
      }
      linesBefore = lines.length;
      cut += losePower(join(root, "state/chat.db-wal"), synced);
      inFlightAtKill += [...started].filter(
        (k) => k.startsWith(`r${round}-`) && !ok.has(k) && !failed.has(k),
      ).length;

      // "After restart": this process opens the store the killed child left behind.
      const db = openStore({ appRoot: root, path: "state/chat.db" });
      const prefs = await db.preferences.getAll("crash");
      const inInbox = new Set((await db.inbox.unfinished()).map((r) => r.dedupKey));
      db.close();
      const lostAnswers = [...ok].filter((k) => !inInbox.has(k) || prefs[k] === undefined);
      const keptErrors = [...failed].filter((k) => inInbox.has(k) || prefs[k] !== undefined);
      // A logical transaction is atomic: its inbox row and its preference exist together or not at all.
      const torn = [...started].filter((k) => inInbox.has(k) !== (prefs[k] !== undefined));
      expect({ round, lostAnswers, keptErrors, torn }).toEqual({
        round,
        lostAnswers: [],
        keptErrors: [],
        torn: [],
      });
      expect(ok.size).toBeGreaterThan(50 * round);
      expect(failed.size).toBeGreaterThan(0);
    }
    // The kills landed while groups were being committed (callers still waiting for their answer),
    // and the emulated power losses took committed but unsynced WAL frames away.
    expect(inFlightAtKill).toBeGreaterThanOrEqual(50);
    expect(cut).toBeGreaterThan(0);
  }, 120_000);
});
