import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      "apps/*/vitest.config.ts",
      "examples/*/vitest.config.ts",
      "tooling/build/vitest.config.ts",
      "tooling/install-test/vitest.config.ts",
      "tooling/pg-test/vitest.config.ts",
      "tooling/cluster-test/vitest.config.ts",
    ],
  },
});
