// A throwaway package folder whose tsconfig.build.json extends the real preset
// (tooling/tsconfig/package.json): source files, tests beside them, a __tests__ folder, and a
// folder the package excludes itself, as webui-page does with its browser client. Removed when the
// test file ends.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { testTempDir } from "../../vitest.temp-dirs.js";

/** tsconfig's placeholder for the folder of the config that names it. */
export const CONFIG_DIR = "$" + "{configDir}";

const preset = resolve(import.meta.dirname, "../../tsconfig/package.json");

export function fixturePackage(files: Record<string, string>, exclude?: string[]): string {
  const dir = testTempDir("agentsvc-build-");
  const config: Record<string, unknown> = { extends: preset };
  if (exclude) config.exclude = exclude;
  writeFileSync(join(dir, "tsconfig.build.json"), JSON.stringify(config));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "fixture", type: "module" }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
