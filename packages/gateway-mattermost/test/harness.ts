// The platform side for the contract suite: one Mattermost fake behind every gateway instance the
// harness builds (a restart builds a new one against the same fake).
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { MattermostFake, within } from "@agentsvc/testkit";
import { createGateway, type MattermostGatewayOptions } from "../src/index.js";

export interface MattermostHarness extends GatewayHarness {
  fake: MattermostFake;
}

export async function mattermostHarness(
  overrides: Partial<MattermostGatewayOptions> = {},
): Promise<MattermostHarness> {
  const fake = await MattermostFake.start();
  return {
    fake,
    threads: ["chana000000000000000000000", "chanb000000000000000000000"],
    // The adapter resumes from a position it keeps: a failed recording is read again from it.
    cursor: true,
    gateway: () =>
      createGateway({
        name: "mattermost",
        tokenEnvVar: "MM_TOKEN",
        env: { MM_TOKEN: fake.token },
        serverUrl: fake.url,
        backoff: { baseMs: 20, maxMs: 200 },
        ...overrides,
      }),
    inject: async (m) => {
      await within(fake.connected(), 3_000, "the bot's WebSocket");
      // The same contract id is the same post (a resumed connection sends it again by itself).
      const { confirmed } = fake.userPosts(m.thread, `user-${m.author}`, m.text, { id: `p-${m.id}` });
      await within(confirmed, 3_000, `the bot reading past ${m.id}`);
    },
    sent: async () =>
      fake.botPosts.map((p) => ({
        thread: p.root_id ? `${p.channel_id}|${p.root_id}` : p.channel_id,
        text: p.message,
      })),
    failNext: (status) => fake.failNext(status, status === 429 ? 0.2 : undefined),
    close: () => fake.close(),
  };
}
