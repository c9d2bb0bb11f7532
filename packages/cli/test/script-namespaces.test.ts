// The script `agentsvc start` runs (dist/bundle/main.cjs, scripts/bundle.mjs) reads valibot and
// @opentelemetry/api, external ES modules, as the namespace the bin's require() returns. esbuild
// wrapped that namespace in a copy per importing file (__toESM: one getter per export, 22 copies of
// valibot's ~700 at every start, ~10 ms of the main thread, #45.1).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers.js";

const script = readFileSync(join(repoRoot, "packages/cli/dist/bundle/main.cjs"), "latin1");

describe("the start script's external ES modules", () => {
  it("are the namespaces the bin requires, not a copy of their exports per importing file", () => {
    expect(script).not.toMatch(/__toESM\(require\("(valibot|@opentelemetry\/api)"\)/);
    // Every file importing valibot still takes it: as the namespace itself.
    expect(script.match(/\b\w+ = require\("valibot"\);/g)?.length).toBeGreaterThan(10);
  });
});
