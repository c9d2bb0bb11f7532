import { defineProject } from "vitest/config";

// The example runs against built packages (as `pnpm dev:fakes` does), so no source aliases here.
export default defineProject({
  test: {
    name: "@agentsvc/example-chat-fakes",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    pool: "forks",
  },
});
