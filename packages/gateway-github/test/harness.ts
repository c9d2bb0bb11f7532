// The GitHub side of the tests: the testkit fake (REST comments API + GitHub's signed webhook
// deliveries) and a local host serving the gateway's webhook route over real HTTP.
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { FakeGitHub, type GitHubUser, hostWebhooks, type WebhookHost } from "@agentsvc/testkit";
import { GithubGateway, type GithubGatewayOptions } from "../src/index.js";
import { parseThreadId } from "../src/thread.js";

export const SECRETS = {
  GH_TEST_TOKEN: "ghs_testtoken123",
  GH_TEST_WEBHOOK_SECRET: "webhook-secret-7a7a",
  GH_TEST_BOT_NAME: "agentsvc-bot",
};
Object.assign(process.env, SECRETS);

export const alice: GitHubUser = { login: "alice", id: 101, type: "User" };
export const bob: GitHubUser = { login: "bob", id: 202, type: "User" };

export interface GithubWorld {
  fake: FakeGitHub;
  host: WebhookHost;
  build(extra?: Partial<GithubGatewayOptions>): GithubGateway;
  close(): Promise<void>;
}

export async function githubWorld(): Promise<GithubWorld> {
  const host = await hostWebhooks();
  const fake = await FakeGitHub.start({
    token: SECRETS.GH_TEST_TOKEN,
    webhookSecret: SECRETS.GH_TEST_WEBHOOK_SECRET,
    botName: SECRETS.GH_TEST_BOT_NAME,
    webhookUrl: host.urlOf("github"),
  });
  return {
    fake,
    host,
    build(extra = {}) {
      const gateway = new GithubGateway({
        ...extra,
        tokenEnvVar: "GH_TEST_TOKEN",
        webhookSecretEnvVar: "GH_TEST_WEBHOOK_SECRET",
        botNameEnvVar: "GH_TEST_BOT_NAME",
        apiBaseUrl: fake.url,
      });
      host.mount("github", gateway.webhooks);
      return gateway;
    },
    close: async () => {
      await host.close();
      await fake.close();
    },
  };
}

/** The thread id a posted comment belongs to, as the gateway names threads. */
export function threadOf(p: { owner: string; repo: string; target: string }): string {
  const issue = /^issues\/(\d+)$/.exec(p.target);
  if (issue) return `repo:${p.owner}/${p.repo}:issue:${issue[1]}`;
  return `repo:${p.owner}/${p.repo}:review-comment:${p.target.split("/").at(-1)}`;
}

const users = new Map<string, GitHubUser>();
function userOf(name: string): GitHubUser {
  let user = users.get(name);
  if (!user) {
    user = { login: name, id: 5000 + users.size, type: "User" };
    users.set(name, user);
  }
  return user;
}

export async function githubHarness(): Promise<GatewayHarness> {
  const world = await githubWorld();
  const { fake } = world;
  return {
    gateway: () => world.build(),
    threads: ["repo:octo-org/hello-world:issue:1", "repo:octo-org/hello-world:issue:2"],
    inject: async (m) => {
      const t = parseThreadId(m.thread);
      if (t?.kind !== "issue") throw new Error(`not an issue thread: ${m.thread}`);
      await fake.deliverAcknowledged(
        fake.commentOnIssue({
          owner: t.owner,
          repo: t.repo,
          number: t.number,
          body: `@${SECRETS.GH_TEST_BOT_NAME} ${m.text}`,
          user: userOf(m.author),
          delivery: m.id,
        }),
      );
    },
    sent: async () => fake.posted.map((p) => ({ thread: threadOf(p), text: p.body })),
    failNext: (status) => fake.failNext(status, status === 429 ? 0.05 : undefined),
    close: () => world.close(),
  };
}
