// The platform side for the contract suite: one Mattermost fake behind every gateway instance the
// harness builds (a restart builds a new one against the same fake).
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { hostWebhooks, MattermostFake, within } from "@agentsvc/testkit";
import { createGateway, type MattermostGatewayOptions } from "../src/index.js";

export interface MattermostHarness extends GatewayHarness {
  fake: MattermostFake;
}

export async function mattermostHarness(
  overrides: Partial<MattermostGatewayOptions> = {},
  o: { buttons?: boolean } = {},
): Promise<MattermostHarness> {
  const fake = await MattermostFake.start();
  // With buttons the gateway's route is hosted as the server mounts it, under the publicBaseUrl.
  const host = o.buttons ? await hostWebhooks() : undefined;
  const build = () => {
    const gateway = createGateway({
      name: "mattermost",
      tokenEnvVar: "MM_TOKEN",
      env: { MM_TOKEN: fake.token, MM_ACTION_SECRET: "contract-secret" },
      serverUrl: fake.url,
      backoff: { baseMs: 20, maxMs: 200 },
      ...(o.buttons ? { actionSecretEnvVar: "MM_ACTION_SECRET" } : {}),
      ...overrides,
    });
    if (!host) return gateway;
    host.mount("mattermost", gateway.webhooks);
    const start = gateway.start.bind(gateway);
    gateway.start = (ctx) => start({ ...ctx, publicBaseUrl: host.url });
    return gateway;
  };
  return {
    fake,
    threads: ["chana000000000000000000000", "chanb000000000000000000000"],
    // The adapter resumes from a position it keeps: a failed recording is read again from it.
    cursor: true,
    gateway: build,
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
    ...(host
      ? {
          choose: async (request, decision, author) => {
            const card = fake.botPosts.find((p) => JSON.stringify(p.props ?? {}).includes(request.requestId));
            if (!card) throw new Error(`mattermost shows no buttons for ${request.requestId}`);
            const answer = await fake.press(card.id, decision, `user-${author}`);
            if (answer.status !== 200) throw new Error(`press answered ${answer.status}`);
          },
        }
      : {}),
    failNext: (status) => fake.failNext(status, status === 429 ? 0.2 : undefined),
    close: async () => {
      await host?.close();
      await fake.close();
    },
  };
}
