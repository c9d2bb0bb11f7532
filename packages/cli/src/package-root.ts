import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/**
 * The folder of this package's package.json. The code runs from src/ (tests), dist/ (the library
 * entry) and dist/bundle/ (the `agentsvc` command, see scripts/bundle.mjs), so it is looked up
 * rather than assumed one level up.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (true) {
    const manifest = join(dir, "package.json");
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "@agentsvc/cli"
    ) {
      root = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`@agentsvc/cli: no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
