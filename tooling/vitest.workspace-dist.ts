// Which workspace packages a test run loads from their built dist and which from their sources (#45).
//
// Loading another package from sources made every test file transform and collect that package's
// TypeScript (and its dependencies') through vite-node, in the main process; collect was most of
// a file's CPU time. A built dist is plain ESM that vite-node leaves to Node's own loader
// (`server.deps.external`), untransformed and cached like any dependency.
//
// A package is loaded from dist only when its dist is built from its current sources (every source
// file's dist file at least as new) and so is every workspace package it depends on: a package's
// dist imports its dependencies' dist, so one on sources among them would be a second copy of it
// (instanceof, module-level registries). `pnpm test` in CI runs after `pnpm build`, so it loads
// dist throughout; after an edit without a build, the edited package and its dependents come from
// sources, as before. A project's own package always comes from sources (its tests import
// `../src/*.ts`; its name must mean the same modules). AGENTSVC_TEST_PACKAGES=sources loads every
// other package from sources, =dist from dist however old (to compare the two, or when only tests
// changed since the last build).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { sourceFiles } from "./build/source-files.mjs";

const root = resolve(import.meta.dirname, "..");

/** A file Node loads itself: any workspace package's (or tooling package's) built output. */
export const BUILT_DIST = /[\\/](?:packages|apps|tooling)[\\/][^\\/]+[\\/]dist[\\/]/;

interface Manifest {
  name: string;
  exports?: Record<string, { default?: string } | string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

interface WorkspacePackage {
  name: string;
  /** Each export as the specifier tests import and the source file its dist file is built from. */
  sources: { spec: string; source: string }[];
  /** Loaded from its built dist (else from sources through aliases). */
  dist: boolean;
}

/** Every source file's dist file exists and is at least as new (emit-js: src/x.ts -> dist/x.js). */
function distIsCurrent(dir: string): boolean {
  if (!existsSync(join(dir, "tsconfig.build.json"))) return false;
  return sourceFiles(dir).every((file: string) => {
    const built = join(dir, "dist", relative(join(dir, "src"), file).replace(/\.ts$/, ".js"));
    return existsSync(built) && statSync(built).mtimeMs >= statSync(file).mtimeMs;
  });
}

function readWorkspace(): WorkspacePackage[] {
  const manifests: { dir: string; manifest: Manifest }[] = [];
  for (const group of ["packages", "apps"]) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir)) {
      const file = join(groupDir, name, "package.json");
      if (existsSync(file)) {
        manifests.push({ dir: join(groupDir, name), manifest: JSON.parse(readFileSync(file, "utf8")) });
      }
    }
  }
  const names = new Set(manifests.map((m) => m.manifest.name));
  const chosen = process.env.AGENTSVC_TEST_PACKAGES;
  const current = new Map(
    manifests.map(({ dir, manifest }) => [
      manifest.name,
      chosen === "dist" || (chosen !== "sources" && distIsCurrent(dir)),
    ]),
  );
  const runtimeDeps = (m: Manifest) =>
    Object.keys({ ...m.dependencies, ...m.peerDependencies, ...m.optionalDependencies }).filter(
      (dep) => names.has(dep) && dep !== m.name,
    );
  const byName = new Map(manifests.map((m) => [m.manifest.name, m.manifest]));
  const onDist = new Map<string, boolean>();
  const distOf = (name: string): boolean => {
    let known = onDist.get(name);
    if (known === undefined) {
      onDist.set(name, false); // a dependency cycle (none today) stays on sources
      known = current.get(name) === true && runtimeDeps(byName.get(name) as Manifest).every(distOf);
      onDist.set(name, known);
    }
    return known;
  };
  const packages = manifests.map(({ dir, manifest }) => ({
    name: manifest.name,
    dist: distOf(manifest.name),
    sources: Object.entries(manifest.exports ?? {}).flatMap(([sub, target]) => {
      const built = typeof target === "object" ? target.default : undefined;
      const source = built?.match(/^\.\/dist\/(.+)\.js$/)?.[1];
      if (!source) return [];
      const spec = sub === "." ? manifest.name : `${manifest.name}/${sub.slice(2)}`;
      return [{ spec, source: join(dir, "src", `${source}.ts`) }];
    }),
  }));
  const fromSources = packages.filter((p) => !p.dist).map((p) => p.name);
  if (chosen === undefined && fromSources.length > 0) {
    console.warn(
      `vitest: from sources, their dist being older than their sources or than a dependency's (\`pnpm build\` to load dist): ${fromSources.join(", ")}`,
    );
  }
  return packages;
}

const cache = globalThis as { __agentsvcWorkspace?: WorkspacePackage[] };

/** The workspace packages, read once per vitest process (every project's config asks). */
export function workspacePackages(): WorkspacePackage[] {
  cache.__agentsvcWorkspace ??= readWorkspace();
  return cache.__agentsvcWorkspace;
}

/** Aliases from each export to its source file: for `self` and for every package not on dist. */
export function workspaceAliases(
  packages: WorkspacePackage[],
  self: string,
): { find: RegExp; replacement: string }[] {
  return packages
    .filter((p) => p.name === self || !p.dist)
    .flatMap((p) =>
      p.sources.map(({ spec, source }) => ({
        find: new RegExp(`^${spec.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`),
        replacement: source,
      })),
    );
}
