import { availableParallelism } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { split as cli } from "./packages/cli/vitest.config.ts";
import { split as server } from "./apps/server/vitest.config.ts";
import { split as webuiPage } from "./packages/webui-page/vitest.config.ts";
import { forkOutConfig, SHARED_THREADS } from "./tooling/vitest.preset.ts";
import SlowFirstSequencer from "./tooling/vitest.sequencer.ts";
import { useRamTmpDir } from "./tooling/vitest.tmpdir.ts";

// The run's temp files in memory when the machine has room (tooling/vitest.tmpdir.ts says why).
useRamTmpDir();

// Most test files wait on I/O (servers on 127.0.0.1, child processes, PostgreSQL, Chromium), so two
// test files per CPU: vitest's own default for `run` is one fewer than the CPUs, one file at a time
// on the 2-CPU CI machine. `pnpm test --maxWorkers=1` runs them one by one again.
const workers = Math.max(2, availableParallelism() * 2);

// session-core's files share modules (its own config) but the cap test on a real PostgreSQL, which
// held one of the two shared threads 52-56 s in whole runs (the project's share: 170-190 s) (#45).
const sessionCore = forkOutConfig(join(import.meta.dirname, "packages/session-core"), {}, [
  "test/session-held-cap-pg.test.ts",
]);

export default defineConfig({
  test: {
    maxWorkers: workers,
    // The thread pool of the projects that share modules between files (packageConfig's
    // `sharedModules`), beside the processes of the others; the pool's settings are the run's.
    poolOptions: { threads: SHARED_THREADS },
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      "packages/*/vitest.config.ts",
      "apps/*/vitest.config.ts",
      // Split by file: part in the shared threads, part forked (tooling/vitest.preset.ts).
      "!packages/cli/vitest.config.ts",
      "!apps/server/vitest.config.ts",
      "!packages/webui-page/vitest.config.ts",
      "!packages/session-core/vitest.config.ts",
      cli.forked,
      cli.shared,
      server.forked,
      server.shared,
      webuiPage.forked,
      webuiPage.shared,
      sessionCore.forked,
      sessionCore.shared,
      "examples/*/vitest.config.ts",
      "tooling/build/vitest.config.ts",
      "tooling/install-test/vitest.config.ts",
      "tooling/pg-test/vitest.config.ts",
      "tooling/cluster-test/vitest.config.ts",
    ],
  },
});
