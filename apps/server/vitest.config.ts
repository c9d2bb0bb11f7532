import { splitPackageConfig } from "../../tooling/vitest.preset.ts";

// The server's tests start real servers, child processes and Chromium, and run beside other test
// files: under load a whole-page test or a crash test passed 20 s, and a one-second expect.poll of
// streamed output was too short. A minute per test and five seconds per poll (as in webui-page);
// a poll ends as soon as it passes, so a quiet machine waits no longer.
// Files that share modules in the shared threads (#45): each starts its server in the test's own
// process and leaves no handler or global behind. The others run in child processes, one file after
// another in each (reuseProcesses): they spawn the server or a driver (crash, media-crash,
// stream-crash*, tracing, traceparent-trust, webhook-body-limit), or block their event loop
// (listen-backlog); page-e2e and page-files wait on their page for a minute and half a minute: in
// the two shared threads they would hold one of them that long, among four forked workers they
// take one slot of four.
const extra = { testTimeout: 60_000, pollTimeoutMs: 5_000, reuseProcesses: true };
export const split = splitPackageConfig(import.meta.dirname, extra, [
  "test/account-seeding.test.ts",
  "test/adapter-exports.test.ts",
  "test/agent-thread-namespace.test.ts",
  "test/allowed-hosts.test.ts",
  "test/cluster-run-control.test.ts",
  "test/file-route.test.ts",
  "test/gateways.test.ts",
  "test/install-command.test.ts",
  "test/logger-stack.test.ts",
  "test/metrics-activity.test.ts",
  "test/metrics-failures.test.ts",
  "test/metrics-reconnects.test.ts",
  "test/metrics.test.ts",
  "test/node-version.test.ts",
  "test/page-build-at-start.test.ts",
  "test/page-compression.test.ts",
  "test/page-decision-replay.test.ts",
  "test/page-favicon.test.ts",
  "test/page-file-urls.test.ts",
  "test/page-new-empty.test.ts",
  "test/page-offline-notice.test.ts",
  "test/page-pending-reload.test.ts",
  "test/page-saved-copies.test.ts",
  "test/page-stream-reload.test.ts",
  "test/page-transcripts.test.ts",
  "test/readme-postgres.test.ts",
  "test/request-log.test.ts",
  "test/schedules-budget.test.ts",
  "test/schedules-page.test.ts",
  "test/schedules-platforms.test.ts",
  "test/schedules-whatsapp.test.ts",
  "test/schedules.test.ts",
  "test/server.test.ts",
  "test/spend-meter-sums.test.ts",
  "test/spend-meter-window.test.ts",
  "test/spend-meter.test.ts",
  "test/spend-runs.test.ts",
  "test/store-durability.test.ts",
  "test/transcription.test.ts",
  "test/webhook-adapters.test.ts",
  "test/webhooks.test.ts",
  "test/webui-entry-files.test.ts",
  "test/workspaces.test.ts",
]);

export default split.whole;
