import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeVersionProblem } from "../bin/node-version.js";
import { repoRoot } from "./helpers.js";

const bin = join(repoRoot, "packages/cli/bin/agentsvc.js");
// The machine's own node (v20 here): better-sqlite3 crashes it with a bare segfault at the first store.
const systemNode = "/usr/bin/node";
const oldNode = existsSync(systemNode)
  ? spawnSync(systemNode, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim()
  : "";
const major = Number(oldNode.split(".")[0]);

describe.skipIf(!(major > 0 && major < 22))(`the bin under Node ${oldNode || "(none)"}`, () => {
  for (const args of [["start"], ["check"], ["--version"], ["dev", "."]]) {
    it(`agentsvc ${args.join(" ")} refuses with the version it found and the fix, exit 1`, () => {
      const r = spawnSync(systemNode, [bin, ...args], { encoding: "utf8", timeout: 30_000 });
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`agentsvc needs Node 22.14 or newer (found v${oldNode})`);
      expect(r.stderr).toMatch(/nvm install 22|nodejs\.org/);
      expect(r.stdout).toBe("");
    });
  }
});

describe("the bin's version rule", () => {
  it("refuses Node 22 before 22.14 (better-sqlite3 crashes it at the first open) and accepts 22.14 on", () => {
    expect(nodeVersionProblem("22.13.1")).toContain("agentsvc needs Node 22.14 or newer (found v22.13.1)");
    expect(nodeVersionProblem("22.12.0")).toContain("found v22.12.0");
    expect(nodeVersionProblem("22.14.0")).toBeUndefined();
    expect(nodeVersionProblem("23.1.0")).toBeUndefined();
    expect(nodeVersionProblem("24.11.1")).toBeUndefined();
  });
});
