// Packs every publishable workspace package with `pnpm pack`, which turns `workspace:^` ranges
// into the semver ranges the registry copy carries.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

export const repoRoot = resolve(import.meta.dirname, "../..");

export interface Publishable {
  name: string;
  dir: string;
}

export function publishablePackages(): Publishable[] {
  const found: Publishable[] = [];
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(repoRoot, group))) {
      const manifest = join(repoRoot, group, entry, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name: string; private?: boolean };
      if (!pkg.private) found.push({ name: pkg.name, dir: join(repoRoot, group, entry) });
    }
  }
  return found;
}

/** One package after another; asynchronous, so a test worker's event loop keeps answering meanwhile. */
export async function packAll(into: string): Promise<Publishable[]> {
  const list = publishablePackages();
  for (const { name, dir } of list) {
    if (!existsSync(join(dir, "dist"))) throw new Error(`${name}: no dist/; run \`pnpm build\` first`);
    await promisify(execFile)("pnpm", ["pack", "--pack-destination", into], { cwd: dir, timeout: 60_000 });
  }
  return list;
}
