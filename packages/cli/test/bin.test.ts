import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BROKEN, repoRoot, tempDir, writeFiles } from "./helpers.js";

const bin = join(repoRoot, "packages/cli/bin/agentsvc.js");

function spawnBin(args: string[]) {
  const env = { ...process.env };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env, timeout: 60_000 });
}

describe("the real agentsvc bin", () => {
  // The bin runs dist/: `pnpm build` runs before the tests (README test command, CI). Rebuilding
  // here would race the other suites that spawn the same bin.

  it("prints its version", () => {
    const r = spawnBin(["--version"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("check on broken entries prints every error, plain when piped, and exits 1", () => {
    const dir = writeFiles(tempDir(), BROKEN.files);
    const r = spawnBin(["check", dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).not.toContain("\u001b[");
    for (const want of BROKEN.expected) expect(r.stderr).toContain(`error ${want}`);
  });
});
