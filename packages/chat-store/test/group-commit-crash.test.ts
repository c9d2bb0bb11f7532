import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openStore, tempRoot } from "./helpers.js";

const pkg = resolve(import.meta.dirname, "..");
const ROUNDS = 5;

/** Runs the child until READY, lets it commit for `runMs`, then SIGKILLs it. */
async function runAndKill(root: string, journal: string, round: number, runMs: number): Promise<void> {
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
  } finally {
    child.kill("SIGKILL");
  }
  await new Promise((r) => (child.exitCode !== null || child.signalCode ? r(null) : child.once("exit", r)));
  expect(child.signalCode).toBe("SIGKILL");
}

describe("group commit under SIGKILL", () => {
  // The child imports the built package (dist/): `pnpm build` runs before the tests, as for restart.test.ts.

  it("after a kill during group commits, every caller answered ok finds its data and no caller answered with an error does", async () => {
    const root = tempRoot();
    const journal = join(root, "journal.log");
    let inFlightAtKill = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      await runAndKill(root, journal, round, 40 + round * 37);
      const lines = readFileSync(journal, "utf8").split("\n").filter(Boolean);
      const started = new Set<string>();
      const ok = new Set<string>();
      const failed = new Set<string>();
      for (const line of lines) {
        const [what, key] = line.split(" ") as [string, string];
        if (what === "start") started.add(key);
        else (what === "ok" ? ok : failed).add(key);
      }
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
    // The kills landed while groups were being committed (callers still waiting for their answer).
    expect(inFlightAtKill).toBeGreaterThanOrEqual(50);
  }, 120_000);
});
