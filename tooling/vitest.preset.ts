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

export function packageConfig(dir: string, extra: { testTimeout?: number; setupFiles?: string[] } = {}) {
  const name = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name as string;
  return defineProject({
    resolve: { alias: workspaceAliases() },
    test: {
      name,
      root: dir,
      include: ["test/**/*.test.ts", "src/**/*.test.ts"],
      environment: "node",
      pool: "forks",
      testTimeout: extra.testTimeout ?? 20_000,
      hookTimeout: 60_000,
      setupFiles: extra.setupFiles ?? [],
    },
  });
}
