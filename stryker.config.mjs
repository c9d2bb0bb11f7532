// StrykerJS for the files that carry the product's promises (exactly one turn and one reply, only
// the right person decides, retries that outlast an outage). Run through `pnpm mutate [package]`
// (tooling/mutate/mutate.mjs), which sets MUTATE_PACKAGE and, for one file, MUTATE_FILES.
// Not part of CI: run it before closing an issue that touches these files.
import { promiseFiles } from "./tooling/mutate/promise-files.mjs";

const { MUTATE_PACKAGE, MUTATE_FILES, MUTATE_CONCURRENCY, MUTATE_EXCLUDE, MUTATE_TESTS } = process.env;
const pkg = MUTATE_PACKAGE ?? "session-core";
const files = MUTATE_FILES ? MUTATE_FILES.split(",") : promiseFiles(pkg);
// One report (and one sandbox folder) per package, or per file when one file is named, so runs side by side do not collide.
const one =
  files.length === 1 && MUTATE_FILES ? `-${files[0].replace(/^.*\//, "").replace(/\.ts$/, "")}` : "";
const runName = `${pkg}${one}`;

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  packageManager: "pnpm",
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: {
    // The package's own project: its tests, its timeouts; `related` keeps the dry run to the
    // tests that import a mutated file.
    // MUTATE_EXCLUDE / MUTATE_TESTS (test globs): the same project less those files, or only those
    // (tooling/mutate/vitest.config.ts).
    configFile:
      MUTATE_EXCLUDE || MUTATE_TESTS ? "tooling/mutate/vitest.config.ts" : `packages/${pkg}/vitest.config.ts`,
    related: true,
  },
  // Each mutant runs only the tests that covered it in the dry run.
  coverageAnalysis: "perTest",
  mutate: files,
  // The sandbox is a copy of the repository (about 10 MB; node_modules folders are linked).
  ignorePatterns: [
    "reports",
    ".stryker-tmp",
    "**/dist",
    "**/.turbo",
    "**/coverage",
    "tooling/bench/.runs",
    "**/*.db*",
    // Project folders apps/server's tests make and remove (mkdtemp "fixtures/.<name>-") while
    // Stryker copies the tree: a copy that meets one half-removed fails.
    "apps/server/test/fixtures/.*-*",
  ],
  reporters: ["html", "clear-text", "progress"],
  htmlReporter: { fileName: `reports/mutation/${runName}.html` },
  tempDirName: `.stryker-tmp/${runName}`,
  // Used with `pnpm mutate ... --incremental`: one file per run name, so packages do not share results.
  incrementalFile: `reports/stryker-incremental-${runName}.json`,
  cleanTempDir: "always",
  concurrency: Number(MUTATE_CONCURRENCY ?? 1),
  timeoutMS: 10_000,
  thresholds: { high: 90, low: 75, break: null },
};
