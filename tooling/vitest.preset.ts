// Shared vitest settings. A project's tests import its own package from TypeScript sources (each
// export's built `./dist/<x>.js` maps back to `./src/<x>.ts`), and the other workspace packages
// from their built dist, loaded by Node itself (workspace-dist.ts says when and why).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { configDefaults, defineProject } from "vitest/config";
import { FORK_POOL } from "./vitest.fork-pool.ts";
import { BUILT_DIST, workspacePackages, workspaceAliases } from "./vitest.workspace-dist.ts";

/** Removes the temp folders a file's helpers made (testTempDir) when the file ends. */
const TEMP_SETUP = join(import.meta.dirname, "vitest.temp-setup.ts");

/**
 * The worker threads of projects that share modules between their files (`sharedModules`): files
 * run one after another in each thread and every module a file imports stays loaded for the next
 * (vitest's "import" phase was most of such a project's time: config-schema 175 s -> 49 s at load
 * 34-61). As many threads kept as started: with fewer, vitest 3.2 retires an idle shared worker
 * while it is torn down and the run fails with "Terminating worker thread".
 */
export const SHARED_THREADS = { isolate: false, minThreads: 2, maxThreads: 2 };

interface Extra {
  testTimeout?: number;
  /** `expect.poll`'s default timeout. */
  pollTimeoutMs?: number;
  setupFiles?: string[];
  /** Run once per project around its files (e.g. a server the files share), paths from `dir`. */
  globalSetup?: string[];
  sharedModules?: boolean;
  /**
   * Files run in child processes, but one after another in a process kept for the project's next
   * file (vitest.fork-pool.ts), modules kept: for files that leave no state behind but are unfit for
   * a worker thread (a native driver, a server of their own), checked as sharedModules is.
   */
  reuseProcesses?: boolean;
}

/** AGENTSVC_TEST_ISOLATE=1 gives every forked file a process of its own (a leak between files?). */
const reuseProcesses = (extra: Extra) => !!extra.reuseProcesses && process.env.AGENTSVC_TEST_ISOLATE !== "1";

export function packageConfig(dir: string, extra: Extra = {}) {
  const name = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name as string;
  return defineProject({
    resolve: { alias: workspaceAliases(workspacePackages(), name) },
    test: {
      // What is not aliased to sources resolves to a dist file: Node loads it, untransformed.
      server: { deps: { external: [BUILT_DIST] } },
      name,
      root: dir,
      include: ["test/**/*.test.ts", "src/**/*.test.ts"],
      environment: "node",
      // Each file in a process of its own, unless the project's files leave no state behind
      // (checked by running them twice in shuffled orders) and share modules in threads.
      ...(extra.sharedModules
        ? { pool: "threads" as const, poolOptions: { threads: SHARED_THREADS } }
        : { pool: FORK_POOL, poolOptions: { forks: { isolate: !reuseProcesses(extra) } } }),
      testTimeout: extra.testTimeout ?? 20_000,
      hookTimeout: 60_000,
      // A root run's own temp folder (AGENTSVC_TEST_RUN_TMPDIR) goes whole at its exit: no file
      // pays the setup file's load (~40 ms a file, ~25 s summed in CI) for what that removal does.
      setupFiles: [
        ...(process.env.AGENTSVC_TEST_RUN_TMPDIR ? [] : [TEMP_SETUP]),
        ...(extra.setupFiles ?? []),
      ],
      globalSetup: extra.globalSetup ?? [],
      ...(extra.pollTimeoutMs ? { expect: { poll: { timeout: extra.pollTimeoutMs } } } : {}),
    },
  });
}

/**
 * A project whose files are not all fit to share modules, split by file for the whole run (#45):
 * `sharedFiles` (paths under `dir`, e.g. "test/x.test.ts") run in the shared threads as the project
 * "<name> (shared)", the rest in processes of their own. The root config lists `forked` and
 * `shared` in place of the package's config file; `whole` (every file forked) is what a run in the
 * package itself uses, so a file runs there as before.
 */
export function splitPackageConfig(dir: string, extra: Extra, sharedFiles: string[]) {
  const whole = packageConfig(dir, extra);
  const forked = packageConfig(dir, extra);
  forked.test = { ...forked.test, exclude: [...configDefaults.exclude, ...sharedFiles] };
  const shared = packageConfig(dir, { ...extra, sharedModules: true });
  shared.test = { ...shared.test, name: `${whole.test?.name} (shared)`, include: sharedFiles };
  return { whole, forked, shared };
}

/**
 * A project whose files all share modules but `forkedFiles` (paths under `dir`, e.g.
 * "test/x.test.ts"), which run forked in a root run: files that wait long on their own (a real
 * PostgreSQL, Chromium) and would hold one of the two shared threads while the other runs out of
 * the project's files (#45). Every file of `test/` but those shares, as in the package itself.
 */
export function forkOutConfig(dir: string, extra: Extra, forkedFiles: string[]) {
  const shared = readdirSync(join(dir, "test"))
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => `test/${f}`)
    .filter((f) => !forkedFiles.includes(f));
  return splitPackageConfig(dir, extra, shared);
}
