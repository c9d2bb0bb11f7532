import { mergeConfig } from "vitest/config";
import { packageConfig } from "../../tooling/vitest.preset.ts";

// Browser tests wait on streamed output: give expect.poll a few seconds instead of one.
export default mergeConfig(packageConfig(import.meta.dirname, { testTimeout: 30_000, sharedModules: true }), {
  test: { expect: { poll: { timeout: 5_000, interval: 25 } } },
});
