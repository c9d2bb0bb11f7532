#!/usr/bin/env node
// pnpm mutate [package] [file ...]
//   pnpm mutate                          every configured package, one Stryker run each
//   pnpm mutate session-core             that package's promise-carrying files
//   pnpm mutate session-core src/approvals.ts [src/turns.ts]   only those files
//   pnpm mutate session-core src/approvals.ts --incremental     reuse the last run's results where
//                                        neither the mutant's code nor its tests changed
// Arguments starting with `--` go to `stryker run` as they are.
// The HTML report lands in reports/mutation/<package>.html (not committed).
import { spawnSync } from "node:child_process";
import { DEFAULT_EXCLUDE, DEFAULT_TESTS, MUTATED_PACKAGES, packageDir } from "./promise-files.mjs";

const args = process.argv.slice(2);
const strykerFlags = args.filter((a) => a.startsWith("--"));
const [pkgArg, ...fileArgs] = args.filter((a) => !a.startsWith("--"));
const pkg = pkgArg
  ?.replace(/^@agentsvc\//, "")
  .replace(/^(packages|apps)\//, "")
  .replace(/\/$/, "");
if (!pkg && fileArgs.length > 0) throw new Error("pnpm mutate: name the package before its files");
const packages = pkg ? [pkg] : MUTATED_PACKAGES;

let failed = false;
for (const name of packages) {
  const env = { ...process.env, MUTATE_PACKAGE: name };
  if (env.MUTATE_EXCLUDE === undefined && DEFAULT_EXCLUDE[name])
    env.MUTATE_EXCLUDE = DEFAULT_EXCLUDE[name].join(",");
  if (env.MUTATE_TESTS === undefined && DEFAULT_TESTS[name]) env.MUTATE_TESTS = DEFAULT_TESTS[name].join(",");
  if (fileArgs.length > 0) {
    env.MUTATE_FILES = fileArgs
      .map((f) => (f.startsWith(`${packageDir(name)}/`) ? f : `${packageDir(name)}/${f}`))
      .join(",");
  }
  console.log(
    `\n== pnpm mutate ${name}${env.MUTATE_FILES ? ` (${env.MUTATE_FILES})` : ""}${env.MUTATE_EXCLUDE ? `, without ${env.MUTATE_EXCLUDE}` : ""}${env.MUTATE_TESTS ? `, tests ${env.MUTATE_TESTS}` : ""}`,
  );
  const run = spawnSync("stryker", ["run", "stryker.config.mjs", ...strykerFlags], {
    stdio: "inherit",
    env,
    shell: false,
  });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
