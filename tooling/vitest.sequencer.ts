// Test files that take a minute or more start first. Vitest orders files by their durations in its
// results cache and, without one (a fresh clone, as in CI), by file size; install-test's files are
// small and run for minutes, so on a fresh clone they started last and the run waited on them alone.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Path endings, slowest first: the forked files by their median duration in four whole CI runs of
 * 4 December (#45.6; 326-420 s runs; each file's seconds below), so the four slots end close together (a
 * file of 20 s started last is a run's tail of 20 s); see CONTRIBUTING.md "Tests".
 */
const SLOW_FIRST = [
  "tooling/install-test/test/install-outside.test.ts", // 140
  "tooling/install-test/test/release.test.ts", // 102
  "apps/server/test/page-e2e.test.ts", // 100
  "packages/webui-page/test/browser.test.ts", // 79
  "packages/cli/test/deaf-after.test.ts", // 41: the real 30 s deafAfter, waited
  "packages/cli/test/model-providers.test.ts", // 38-41 in package runs at load 26-42
  "packages/cli/test/postgres-knobs-bin.test.ts", // 30
  "tooling/cluster-test/test/cluster.test.ts", // 25
  "packages/gateway-discord/test/stream.test.ts", // 24
  "packages/gateway-telegram/test/stream.test.ts", // 23
  "packages/cli/test/schedules.test.ts", // 20
  "apps/server/test/page-files.test.ts", // 20
  "packages/cli/test/reminders.test.ts", // 19
  "packages/cli/test/code-cache-bin.test.ts", // 18
  "packages/pg-cluster/test/leadership-heartbeat.test.ts", // 17
  "packages/cli/test/config-keys-bin.test.ts", // 17
  "packages/webui-page/test/first-user.test.ts", // 16
  "apps/server/test/crash.test.ts", // 16
  "packages/gateway-slack/test/stream.test.ts", // 15
  "packages/gateway-discord/test/connection.test.ts", // 14
  "packages/gateway-teams/test/stream.test.ts", // 14
  "tooling/cluster-test/test/outbox-share.test.ts", // 13
  "packages/gateway-email/test/email.test.ts", // 13
  "packages/gateway-telegram/test/faults.test.ts", // 12
  "packages/cli/test/page-schedule-bin.test.ts", // 10
  "apps/server/test/stream-crash.test.ts", // 10
  "packages/gateway-email/test/poll-and-reply.test.ts", // 10
  "packages/session-core/test/session-held-cap-pg.test.ts", // 10
  "apps/server/test/stream-crash-native.test.ts", // 9
  "packages/scheduler/test/crash.test.ts", // 9
  "packages/markdown/test/stream-first-piece.test.ts", // 9
  // 2-8 s in those runs, but 110-200 s each in a whole run at load 25-30 (#45, 2026-12-02), and
  // 24-73 s at 4 and 6 workers, load 12-21 (webhook-body-limit: 64 MiB bodies to five routes).
  "packages/chat-store/test/memory-window.test.ts",
  "packages/chat-store/test/accounts.test.ts",
  "packages/chat-store/test/memory.test.ts",
  "packages/markdown/test/pieces-property.test.ts",
  "packages/chat-store/test/conversations.test.ts",
  "apps/server/test/webhook-body-limit.test.ts",
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
