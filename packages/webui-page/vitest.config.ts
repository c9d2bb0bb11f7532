import { mergeConfig } from "vitest/config";
import { packageConfig } from "../../tooling/vitest.preset.ts";

// Browser tests wait on streamed output: give expect.poll a few seconds instead of one. One
// Chromium for the run's files (test/browser/chromium-server.ts), each test in a context of its own.
export default mergeConfig(packageConfig(import.meta.dirname, { testTimeout: 30_000 }), {
  test: {
    expect: { poll: { timeout: 5_000, interval: 25 } },
    globalSetup: ["test/browser/chromium-server.ts"],
  },
});
