#!/usr/bin/env node
// Part of `pnpm lint`: every glob `pnpm mutate` is configured with (promise-files.mjs) matches at
// least one file. A file renamed or split away otherwise leaves the mutation run without a word:
// the e-mail gateway was configured with three names that no longer existed (#44).
import { globSync } from "node:fs";
import { join } from "node:path";
import {
  CONFIGURED_PACKAGES,
  DEFAULT_EXCLUDE,
  DEFAULT_TESTS,
  packageDir,
  promiseFiles,
} from "./promise-files.mjs";

const root = join(import.meta.dirname, "../..");
const stale = [
  ...CONFIGURED_PACKAGES.flatMap((pkg) => promiseFiles(pkg)),
  ...[DEFAULT_EXCLUDE, DEFAULT_TESTS].flatMap((defaults) =>
    Object.entries(defaults).flatMap(([pkg, tests]) => tests.map((t) => `${packageDir(pkg)}/${t}`)),
  ),
].filter((glob) => globSync(glob, { cwd: root }).length === 0);
if (stale.length > 0) {
  console.error(
    `tooling/mutate/promise-files.mjs: ${stale.length} configured glob(s) match no file:\n` +
      stale.map((g) => `  ${g}`).join("\n") +
      "\nRename them to the files that now hold that behaviour.",
  );
  process.exit(1);
}
console.log(`promise files: ${CONFIGURED_PACKAGES.length} packages, every configured glob matches a file`);
