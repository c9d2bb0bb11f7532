// Temp folders made by test helpers, removed when their test file ends (#45.6): a package's own run
// writes to the OS temp folder (a root run's folder goes at its exit: vitest.tmpdir.ts), and the
// package runs of one session left some 2,500 of them in /tmp (agentsvc-cli-* 1,044). Every
// package's setup file (vitest.temp-setup.ts, wired by vitest.preset.ts; not in a root run with its
// own temp folder, removed whole at its exit) removes them after the file's own afterAll hooks: a folder made in a beforeAll or shared by a file's tests lives as long
// as the file. AGENTSVC_TEST_KEEP_TMP=1 keeps them, to look into after a run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// On globalThis: one list however many copies of this module a worker loads.
const KEY = Symbol.for("agentsvc.test-temp-dirs");
const made = (): Set<string> => {
  const global = globalThis as { [KEY]?: Set<string> };
  global[KEY] ??= new Set();
  return global[KEY];
};

/** A fresh folder `<tmpdir>/<prefix>XXXXXX`, removed when the calling test file ends. */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (!process.env.AGENTSVC_TEST_KEEP_TMP) made().add(dir);
  return dir;
}

/** Removes the folders testTempDir made since the last call (the setup file's afterAll). */
export function removeTestTempDirs(): void {
  const dirs = made();
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (err) {
      // A folder a child process still writes in: left behind, never a red test.
      console.warn(`test temp folder ${dir} not removed: ${(err as Error).message}`);
    }
  }
  dirs.clear();
}
