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

/**
 * Every publishable package in one `pnpm -r pack` (a `--filter` per name), `--json`'s answer parsed
 * into which tarball each package went to. One pnpm process instead of one per package: packing the 31
 * packages one by one took 55 s and 17.5 CPU-s at load 19, recursively 5.5 s and 2.2 CPU-s, the
 * tarballs the same. Asynchronous, so a test worker's event loop keeps answering meanwhile.
 */
export async function packRecursive(
  cwd: string,
  into: string,
  names: string[],
): Promise<{ name: string; filename: string }[]> {
  const filters = names.flatMap((name) => ["--filter", name]);
  const { stdout } = await promisify(execFile)(
    "pnpm",
    [...filters, "-r", "pack", "--json", "--pack-destination", into],
    { cwd, timeout: 240_000, maxBuffer: 64 << 20 },
  );
  type Json = { name: string; filename: string };
  // An array, or the one package's object when the filters match one.
  const parsed = JSON.parse(stdout) as Json | Json[];
  const packed = Array.isArray(parsed) ? parsed : [parsed];
  const got = packed.map((p) => p.name);
  if ([...got].sort().join() !== [...names].sort().join())
    throw new Error(`pnpm -r pack packed ${got.join(", ")}; wanted ${names.join(", ")}`);
  return packed.map(({ name, filename }) => ({ name, filename }));
}

/** Every publishable package packed into `into`, from the built workspace. */
export async function packAll(into: string): Promise<Publishable[]> {
  const list = publishablePackages();
  for (const { name, dir } of list) {
    if (!existsSync(join(dir, "dist"))) throw new Error(`${name}: no dist/; run \`pnpm build\` first`);
  }
  await packRecursive(
    repoRoot,
    into,
    list.map((p) => p.name),
  );
  return list;
}
