import { readdirSync } from "node:fs";
import { join } from "node:path";
import { mergeConfig } from "vitest/config";
import { packageConfig, splitPackageConfig } from "../../tooling/vitest.preset.ts";

// Browser tests wait on streamed output: give expect.poll a few seconds instead of one.
const poll = { test: { expect: { poll: { timeout: 5_000, interval: 25 } } } };
const extra = { testTimeout: 30_000 };

// Every file shares modules in the shared threads but browser.test.ts, which runs in a process of
// its own in a root run (#45): its 40 Chromium tests took 186 s of a loaded run, and the shared
// threads run one project after another, so one thread waited on it while the other had run out
// of this package's files. first-user.test.ts too: 20 s of waiting, most of the project's span in
// the threads (24.8 s of 49 s of files, load 8-16). A run in the package itself shares every file.
const forked = ["test/browser.test.ts", "test/first-user.test.ts"];
const parts = splitPackageConfig(
  import.meta.dirname,
  extra,
  readdirSync(join(import.meta.dirname, "test"))
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => `test/${f}`)
    .filter((f) => !forked.includes(f)),
);
export const split = { forked: mergeConfig(parts.forked, poll), shared: mergeConfig(parts.shared, poll) };

export default mergeConfig(packageConfig(import.meta.dirname, { ...extra, sharedModules: true }), poll);
