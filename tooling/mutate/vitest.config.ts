// The mutated package's vitest project less the test files named in MUTATE_EXCLUDE (comma-separated
// globs, relative to the package): tests whose timing assumptions fail under Stryker's instrumented
// dry run on a loaded machine, which would stop the whole run. Used only when MUTATE_EXCLUDE is set.
import { join } from "node:path";
import { configDefaults } from "vitest/config";
import { packageConfig } from "../vitest.preset.ts";

const pkg = process.env.MUTATE_PACKAGE ?? "session-core";
const base = packageConfig(join(import.meta.dirname, "../../packages", pkg));
const excluded = (process.env.MUTATE_EXCLUDE ?? "").split(",").filter(Boolean);

export default { ...base, test: { ...base.test, exclude: [...configDefaults.exclude, ...excluded] } };
