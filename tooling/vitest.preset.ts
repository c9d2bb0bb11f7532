// Shared vitest settings. Tests import workspace packages from their TypeScript sources (each
// export's built `./dist/<x>.js` maps back to `./src/<x>.ts`) so a change is tested without
// rebuilding its dependencies. The published exports name built files only.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { defineProject } from "vitest/config";

const root = resolve(import.meta.dirname, "..");

function workspaceAliases(): { find: RegExp; replacement: string }[] {
  const aliases: { find: RegExp; replacement: string }[] = [];
  for (const group of ["packages", "apps"]) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const manifest = join(dir, name, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
        name: string;
        exports?: Record<string, { default?: string } | string>;
      };
      for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
        const built = typeof target === "object" ? target.default : undefined;
        const source = built?.match(/^\.\/dist\/(.+)\.js$/)?.[1];
        if (!source) continue;
        const spec = sub === "." ? pkg.name : `${pkg.name}/${sub.slice(2)}`;
        const escaped = spec.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
        aliases.push({
          find: new RegExp(`^${escaped}$`),
          replacement: join(dir, name, "src", `${source}.ts`),
        });
      }
    }
  }
  return aliases;
}

/**
 * The worker threads of projects that share modules between their files (`sharedModules`): files
 * run one after another in each thread and every module a file imports stays loaded for the next
 * (vitest's "import" phase was most of such a project's time: config-schema 175 s -> 49 s at load
 * 34-61). As many threads kept as started: with fewer, vitest 3.2 retires an idle shared worker
 * while it is torn down and the run fails with "Terminating worker thread".
 */
export const SHARED_THREADS = { isolate: false, minThreads: 2, maxThreads: 2 };

export function packageConfig(
  dir: string,
  extra: { testTimeout?: number; setupFiles?: string[]; sharedModules?: boolean } = {},
) {
  const name = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name as string;
  return defineProject({
    resolve: { alias: workspaceAliases() },
    test: {
      name,
      root: dir,
      include: ["test/**/*.test.ts", "src/**/*.test.ts"],
      environment: "node",
      // Each file in a process of its own, unless the project's files leave no state behind
      // (checked by running them twice in shuffled orders) and share modules in threads.
      ...(extra.sharedModules
        ? { pool: "threads" as const, poolOptions: { threads: SHARED_THREADS } }
        : { pool: "forks" as const }),
      testTimeout: extra.testTimeout ?? 20_000,
      hookTimeout: 60_000,
      setupFiles: extra.setupFiles ?? [],
    },
  });
}
