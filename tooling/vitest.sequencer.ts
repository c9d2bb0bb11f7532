// Test files that take a minute or more start first. Vitest orders files by their durations in its
// results cache and, without one (a fresh clone, as in CI), by file size; install-test's files are
// small and run for minutes, so on a fresh clone they started last and the run waited on them alone.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Path endings, slowest first (per-file durations of a whole run, #45; see CONTRIBUTING.md "Tests"). */
const SLOW_FIRST = [
  "tooling/install-test/test/install-outside.test.ts",
  "tooling/install-test/test/release.test.ts",
  "packages/webui-page/test/browser.test.ts",
  "apps/server/test/page-e2e.test.ts",
  "packages/cli/test/deaf-after.test.ts",
  // The slowest of a whole run at load 25-30 (#45, 2026-12-02): 110-200 s each.
  "packages/chat-store/test/memory-window.test.ts",
  "packages/chat-store/test/accounts.test.ts",
  "packages/chat-store/test/memory.test.ts",
  "packages/markdown/test/pieces-property.test.ts",
  "packages/chat-store/test/conversations.test.ts",
  // 20-30 s each in package runs at load 10-18 (#45, 2026-12-02, session 6): servers, child
  // processes and real-time waits (a provider's attempt timeout, PostgreSQL under three instances).
  "tooling/cluster-test/test/outbox-share.test.ts",
  "apps/server/test/page-files.test.ts",
  "apps/server/test/crash.test.ts",
  "packages/cli/test/code-cache-bin.test.ts",
  "tooling/cluster-test/test/cluster.test.ts",
  "packages/cli/test/model-providers.test.ts",
  "packages/markdown/test/stream-first-piece.test.ts",
  "packages/cli/test/reminders.test.ts",
  "packages/cli/test/postgres-knobs-bin.test.ts",
  "packages/webui-page/test/first-user.test.ts",
  // 24-73 s each in root runs of the CLI and server projects at 4 and 6 workers, load 12-21 (#45,
  // 2026-12-02, session 7): 64 MiB bodies sent to five routes, and tick periods waited out.
  "apps/server/test/webhook-body-limit.test.ts",
  "packages/cli/test/schedules.test.ts",
  // Forked out of session-core's shared files in a root run: 52-56 s of a whole run (#45).
  "packages/session-core/test/session-held-cap-pg.test.ts",
  // Forked out of their packages' shared files in a root run (vitest.config.ts): 13-27 s each of
  // the shared threads at load 8-16, waiting on their fakes' clocks.
  "packages/gateway-discord/test/stream.test.ts",
  "packages/gateway-telegram/test/stream.test.ts",
  "packages/gateway-teams/test/stream.test.ts",
  "packages/gateway-discord/test/connection.test.ts",
  "packages/gateway-email/test/email.test.ts",
  "packages/gateway-slack/test/stream.test.ts",
  "packages/gateway-telegram/test/faults.test.ts",
  "packages/gateway-email/test/poll-and-reply.test.ts",
  // The shared threads run one project after another, each until its slowest file ends: the
  // projects with the longest files first (15-20 s in a root run of the shared projects, load 13).
  "packages/session-core/test/session-cluster-outbox-share.test.ts",
  "packages/session-core/test/session-cluster.test.ts",
  "packages/session-core/test/session-cluster-ownership.test.ts",
  "packages/webui/test/turns.test.ts",
];

/** `files` in an order drawn from `seed` (mulberry32): the same seed, the same order. */
function shuffled(files: TestSpecification[], seed: number): TestSpecification[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const order = [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as TestSpecification, order[i] as TestSpecification];
  }
  return order;
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // A seed given (--sequence.seed=<n>) shuffles the files. Vitest's own random sequencer, which
    // --sequence.shuffle.files picks, gives way to a configured one: at the root they kept this order.
    const { seed } = this.ctx.config.sequence;
    if (seed !== undefined) return shuffled(files, seed);
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) =>
      SLOW_FIRST.findIndex((end) => spec.moduleId.replaceAll("\\", "/").endsWith(end));
    const listed = sorted.filter((spec) => rank(spec) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...listed, ...sorted.filter((spec) => rank(spec) < 0)];
  }
}
