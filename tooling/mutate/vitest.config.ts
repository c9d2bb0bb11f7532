// The mutated package's vitest project, narrowed by two variables (comma-separated globs, relative
// to the package). Used only when one of them is set.
// - MUTATE_EXCLUDE: test files left out, e.g. tests whose timing assumptions fail under Stryker's
//   instrumented dry run on a loaded machine, which would stop the whole run.
// - MUTATE_TESTS: only these test files run. For a file that every test of the package covers
//   (session-core's outbox sender), the run takes hours with all of them; with the tests written
//   for that file it takes minutes, and its score is a lower bound (more tests can only kill more).
import { join } from "node:path";
import { configDefaults } from "vitest/config";
import { packageConfig } from "../vitest.preset.ts";
import { packageDir } from "./promise-files.mjs";

const pkg = process.env.MUTATE_PACKAGE ?? "session-core";
const base = packageConfig(join(import.meta.dirname, "../..", packageDir(pkg)));
const globs = (name: string) => (process.env[name] ?? "").split(",").filter(Boolean);
const only = globs("MUTATE_TESTS");

export default {
  ...base,
  test: {
    ...base.test,
    ...(only.length > 0 ? { include: only } : {}),
    exclude: [...configDefaults.exclude, ...globs("MUTATE_EXCLUDE")],
  },
};
