import { mergeConfig } from "vitest/config";
import { packageConfig } from "../../tooling/vitest.preset.ts";

// The server's tests start real servers, child processes and Chromium, and run beside other test
// files: under load a whole-page test or a crash test passed 20 s, and a one-second expect.poll of
// streamed output was too short. A minute per test and five seconds per poll (as in webui-page);
// a poll ends as soon as it passes, so a quiet machine waits no longer.
export default mergeConfig(packageConfig(import.meta.dirname, { testTimeout: 60_000 }), {
  test: { expect: { poll: { timeout: 5_000 } } },
});
