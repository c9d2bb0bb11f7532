// First: the run's temp folder is set before the project configs below are built.
import "./tooling/vitest.run-tmpdir.ts";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { split as cli } from "./packages/cli/vitest.config.ts";
import { split as server } from "./apps/server/vitest.config.ts";
import { split as webuiPage } from "./packages/webui-page/vitest.config.ts";
import { forkOutConfig, SHARED_THREADS } from "./tooling/vitest.preset.ts";
import SlowFirstSequencer from "./tooling/vitest.sequencer.ts";

// Most test files wait on I/O (servers on 127.0.0.1, child processes, PostgreSQL, Chromium), so two
// test files per CPU: vitest's own default for `run` is one fewer than the CPUs, one file at a time
// on the 2-CPU CI machine. `pnpm test --maxWorkers=1` runs them one by one again.
const workers = Math.max(2, availableParallelism() * 2);

// Packages whose files share modules (their own configs) but these, which run forked in a root run
// (#45). The two shared threads run one project after another, file after file: at load 8-16 the
// shared projects alone took 390 s, 743 s of files in two threads, mostly waiting, while the four
// forked workers had room. Each file here waits 13-27 s on its fake's real clock (streams paced by
// token delays and edit intervals, reconnects); the lane side by side at load 31-68: 582 -> 537 s.
// session-core's cap test on a real PostgreSQL held one of the threads 52-56 s in whole runs.
// They share modules in their packages' own runs, so a package's two here reuse one process.
const FORKED_OUT: Record<string, string[]> = {
  "packages/session-core": ["test/session-held-cap-pg.test.ts"],
  "packages/gateway-discord": ["test/stream.test.ts", "test/connection.test.ts"],
  "packages/gateway-telegram": ["test/stream.test.ts", "test/faults.test.ts"],
  "packages/gateway-email": ["test/email.test.ts", "test/poll-and-reply.test.ts"],
  "packages/gateway-teams": ["test/stream.test.ts"],
  "packages/gateway-slack": ["test/stream.test.ts"],
};
const forkedOut = Object.entries(FORKED_OUT).map(([dir, files]) =>
  forkOutConfig(join(import.meta.dirname, dir), { reuseProcesses: true }, files),
);

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
      ...Object.keys(FORKED_OUT).map((dir) => `!${dir}/vitest.config.ts`),
      cli.forked,
      cli.shared,
      server.forked,
      server.shared,
      webuiPage.forked,
      webuiPage.shared,
      ...forkedOut.flatMap((parts) => [parts.forked, parts.shared]),
      "examples/*/vitest.config.ts",
      "tooling/build/vitest.config.ts",
      "tooling/install-test/vitest.config.ts",
      "tooling/pg-test/vitest.config.ts",
      "tooling/raw-http/vitest.config.ts",
      "tooling/cluster-test/vitest.config.ts",
    ],
  },
});
