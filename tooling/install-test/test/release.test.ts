// A release that can be cut: in a scratch copy of the repository, `changeset version` consumes the
// pending changesets, then every public package is packed as `pnpm publish -r` would publish it.
// Each tarball must carry its built files and declarations and no tests, name its siblings by the
// new versions (no `workspace:` range left), install with plain npm outside the workspace, and
// import under Node and type-check under TypeScript. CONTRIBUTING.md "Releasing" is the procedure.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { cp, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalRegistry, startLocalRegistry } from "../../registry/local-registry.js";
import { packRecursive, publishablePackages, repoRoot } from "../../registry/pack.js";
import { NPM_FLAGS, run, userHome } from "./outside.js";

const home = userHome("agentsvc-release-");
const scratch = join(home, "repo");
const tarballDir = join(home, "tarballs");
const changesetBin = join(repoRoot, "node_modules/@changesets/cli/bin.js");
const tscBin = join(repoRoot, "node_modules/typescript/bin/tsc");

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
interface Packed {
  manifest: Manifest;
  files: string[];
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;
const before = new Map(
  publishablePackages().map((p) => [p.name, readJson<Manifest>(join(p.dir, "package.json"))]),
);
const packed = new Map<string, Packed>();
let registry: LocalRegistry | undefined;

/** The workspace folders pnpm-workspace.yaml lists (changesets reads every package.json). */
function workspaceDirs(): string[] {
  const globs = readFileSync(join(repoRoot, "pnpm-workspace.yaml"), "utf8")
    .split("\n")
    .map((l) => /^\s+-\s+(\S+)$/.exec(l)?.[1])
    // Folder entries only (the file's other lists name packages: esbuild, better-sqlite3).
    .filter((g): g is string => g?.includes("/") === true);
  const dirs: string[] = [];
  for (const glob of globs) {
    if (glob.endsWith("/*")) {
      const parent = glob.slice(0, -2);
      for (const entry of readdirSync(join(repoRoot, parent))) dirs.push(`${parent}/${entry}`);
    } else dirs.push(glob);
  }
  return dirs.filter((d) => existsSync(join(repoRoot, d, "package.json")));
}

/** Asynchronous, so the test worker's event loop keeps answering the runner meanwhile. */
const exec = async (cmd: string, args: string[], cwd: string, timeout: number) =>
  (await promisify(execFile)(cmd, args, { cwd, timeout, maxBuffer: 16 << 20 })).stdout;

beforeAll(async () => {
  expect(home.startsWith(repoRoot)).toBe(false);
  // The repository as a release machine has it after `pnpm install` and `pnpm build`. The packages'
  // node_modules hold relative links (to sibling packages, which pnpm pack reads the new versions
  // from, and into the root's node_modules/.pnpm, which is linked, not copied).
  for (const file of ["package.json", "pnpm-workspace.yaml", ".changeset"]) {
    await cp(join(repoRoot, file), join(scratch, file), { recursive: true });
  }
  symlinkSync(join(repoRoot, "node_modules"), join(scratch, "node_modules"));
  for (const dir of workspaceDirs()) {
    await cp(join(repoRoot, dir), join(scratch, dir), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => !/[\\/]\.turbo([\\/]|$)/.test(relative(repoRoot, src)),
    });
  }
  // 7 s alone at load 3; past 120 s at the start of two whole runs at load 12-31 (#45).
  await exec(process.execPath, [changesetBin, "version"], scratch, 240_000);
  mkdirSync(tarballDir);
  // One recursive pack in the scratch copy (pack.ts says why); each tarball is then read itself.
  const tarballs = await packRecursive(
    scratch,
    tarballDir,
    publishablePackages().map((p) => p.name),
  );
  for (const { name, filename: file } of tarballs) {
    const files = (await exec("tar", ["-tzf", file], home, 30_000))
      .split("\n")
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ""));
    const manifest = JSON.parse(
      await exec("tar", ["-xzOf", file, "package/package.json"], home, 30_000),
    ) as Manifest;
    packed.set(name, { manifest, files });
  }
}, 420_000);

afterAll(async () => {
  await registry?.close();
  // Asynchronous, as the copy was: a synchronous delete blocks the worker past vitest's RPC timeout under load.
  await rm(home, { recursive: true, force: true });
}, 120_000);

describe("a release cut from the pending changesets", () => {
  it("versions every public package within 0.x above its current version, with a CHANGELOG.md, and consumes the changesets", () => {
    for (const [name, { manifest }] of packed) {
      const old = before.get(name)?.version as string;
      expect(manifest.version, name).toMatch(/^0\.\d+\.\d+$/);
      // A pending changeset bumps it; without one it stays (and is not republished).
      expect(compareVersions(manifest.version, old), name).toBeGreaterThanOrEqual(0);
      const dir = publishablePackages().find((p) => p.name === name)?.dir as string;
      if (manifest.version !== old) {
        const log = readFileSync(join(scratch, relative(repoRoot, dir), "CHANGELOG.md"), "utf8");
        expect(log, name).toContain(`## ${manifest.version}`);
      }
    }
    const left = readdirSync(join(scratch, ".changeset")).filter(
      (f) => f.endsWith(".md") && f !== "README.md",
    );
    expect(left).toEqual([]);
  });

  it("packs each package with the built files and declarations of every export, no test files, and its siblings at their new versions", () => {
    const versions = new Map([...packed].map(([name, p]) => [name, p.manifest.version]));
    for (const [name, { manifest, files }] of packed) {
      expect(
        files.filter((f) => /(^|\/)(test|tests|__tests__)\/|\.(test|spec)\.[cm]?[jt]s$/.test(f)),
        name,
      ).toEqual([]);
      for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
        const conditions = typeof target === "string" ? { default: target } : target;
        for (const [condition, file] of Object.entries(conditions)) {
          expect(files, `${name} exports["${subpath}"].${condition}`).toContain(file.replace(/^\.\//, ""));
        }
        if (typeof target !== "string" && !subpath.endsWith(".json") && !subpath.endsWith(".css")) {
          expect(conditions.types, `${name} exports["${subpath}"] names its declarations`).toMatch(
            /\.d\.ts$/,
          );
        }
      }
      const ranges = { ...manifest.dependencies, ...manifest.optionalDependencies };
      for (const [dep, range] of Object.entries(ranges)) {
        expect(range, `${name} -> ${dep}`).not.toMatch(/^workspace:/);
        const sibling = versions.get(dep);
        if (sibling) expect(range, `${name} -> ${dep}`).toBe(`^${sibling}`);
      }
      // Optional peers (the PostgreSQL packages) take any 0.x: a peer's bump must not force a
      // major on its dependents (CONTRIBUTING.md "Internal dependencies").
      for (const [dep, range] of Object.entries(manifest.peerDependencies ?? {})) {
        expect(range, `${name} peer ${dep}`).not.toMatch(/^workspace:/);
        const sibling = versions.get(dep);
        if (sibling)
          expect(inPeerRange(range, sibling), `${name} peer ${dep}: ${range} vs ${sibling}`).toBe(true);
      }
    }
  });

  it("installs with plain npm outside the workspace; every package imports under Node and type-checks under TypeScript", async () => {
    registry = await startLocalRegistry(tarballDir);
    const app = join(home, "consumer");
    mkdirSync(app);
    const names = [...packed.keys()].sort();
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module", dependencies: {} }),
    );
    writeFileSync(join(app, ".npmrc"), `@agentsvc:registry=${registry.url}\n`);
    const install = await run("npm", ["install", ...NPM_FLAGS, ...names], app, 240_000);
    expect(install.code, `${install.stdout}\n${install.stderr}`).toBe(0);

    writeFileSync(
      join(app, "imports.mjs"),
      `${names.map((n, i) => `import * as m${i} from "${n}";`).join("\n")}\nconsole.log([${names
        .map((_, i) => `Object.keys(m${i}).length`)
        .join(", ")}].join(" "));\n`,
    );
    const imported = await run(process.execPath, ["imports.mjs"], app, 60_000);
    expect(imported.code, imported.stderr).toBe(0);
    // Every package exports something.
    expect(
      imported.stdout
        .trim()
        .split(" ")
        .map(Number)
        .every((n) => n > 0),
      imported.stdout,
    ).toBe(true);

    writeFileSync(
      join(app, "types.ts"),
      `${names.map((n, i) => `import type * as t${i} from "${n}";`).join("\n")}\nexport type All = [${names
        .map((_, i) => `typeof t${i}`)
        .join(", ")}];\n`,
    );
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          target: "es2023",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["types.ts"],
      }),
    );
    const tsc = await run(process.execPath, [tscBin, "-p", "tsconfig.json"], app, 120_000);
    expect(tsc.code, `${tsc.stdout}\n${tsc.stderr}`).toBe(0);
  });
});

/** Semver order of two plain x.y.z versions. */
function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number)) as [number[], number[]];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** Whether `version` is in a `>=x.y.z <N` peer range. */
function inPeerRange(range: string, version: string): boolean {
  const m = /^>=(\d+\.\d+\.\d+) <(\d+)$/.exec(range);
  if (!m) return false;
  return compareVersions(version, m[1] as string) >= 0 && Number(version.split(".")[0]) < Number(m[2]);
}
