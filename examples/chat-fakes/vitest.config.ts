import { defineProject } from "vitest/config";
import { FORK_POOL } from "../../tooling/vitest.fork-pool.ts";
import { BUILT_DIST } from "../../tooling/vitest.workspace-dist.ts";

// The example runs against built packages (as `pnpm dev:fakes` does), so no source aliases here.
export default defineProject({
  test: {
    // Node loads the built packages itself, untransformed (vite-node would transform each file).
    server: { deps: { external: [BUILT_DIST] } },
    name: "@agentsvc/example-chat-fakes",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    // As the preset's: starting the demo (server and fakes) passed vitest's default 10 s at load 14.
    hookTimeout: 60_000,
    // A process per file, in the run's forked slots (tooling/vitest.fork-pool.ts).
    pool: FORK_POOL,
  },
});
