// The Teams side of the tests: the testkit Bot Framework fake (connector, OpenID/JWKS, token
// endpoint) and a local host serving the gateway's messaging endpoint over real HTTP.
import { decodeDecision } from "@agentsvc/adapter-kit";
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { FakeTeams, hostWebhooks, type TeamsUser, type WebhookHost } from "@agentsvc/testkit";
import { TeamsGateway, type TeamsGatewayOptions } from "../src/index.js";

export const SECRETS = {
  TEAMS_TEST_APP_ID: "00000000-1111-2222-3333-444444444444",
  TEAMS_TEST_APP_PASSWORD: "app-password-~x~",
};
Object.assign(process.env, SECRETS);

export const alice: TeamsUser = { id: "29:1alice", name: "Alice", aadObjectId: "aad-alice" };
export const bob: TeamsUser = { id: "29:1bob", name: "Bob", aadObjectId: "aad-bob" };

export interface TeamsWorld {
  fake: FakeTeams;
  host: WebhookHost;
  build(extra?: Partial<TeamsGatewayOptions>): TeamsGateway;
  close(): Promise<void>;
}

export async function teamsWorld(): Promise<TeamsWorld> {
  const host = await hostWebhooks();
  const fake = await FakeTeams.start({
    appId: SECRETS.TEAMS_TEST_APP_ID,
    appPassword: SECRETS.TEAMS_TEST_APP_PASSWORD,
    webhookUrl: host.urlOf("teams"),
  });
  return {
    fake,
    host,
    build(extra = {}) {
      const gateway = new TeamsGateway({
        ...extra,
        appIdEnvVar: "TEAMS_TEST_APP_ID",
        appPasswordEnvVar: "TEAMS_TEST_APP_PASSWORD",
        openIdMetadataUrl: fake.openIdMetadataUrl,
        loginBaseUrl: fake.loginBaseUrl,
        serviceUrl: fake.serviceUrl,
      });
      host.mount("teams", gateway.webhooks);
      return gateway;
    },
    close: async () => {
      await host.close();
      await fake.close();
    },
  };
}

const userOf = (name: string): TeamsUser => ({ id: `29:${name}`, name, aadObjectId: `aad-${name}` });

export async function teamsHarness(): Promise<GatewayHarness> {
  const world = await teamsWorld();
  const { fake } = world;
  const owner = new Map<string, string>();
  return {
    gateway: () => world.build(),
    threads: ["a:1conversation-one", "a:1conversation-two"],
    inject: async (m) => {
      owner.set(m.thread, m.author);
      await fake.deliverAcknowledged(
        fake.messageActivity({ conversationId: m.thread, from: userOf(m.author), text: m.text, id: m.id }),
      );
    },
    sent: async () => fake.sent.map((s) => ({ thread: s.conversationId, text: s.text })),
    choose: async (request, decision, author) => {
      // The card's actions carry session-core's decision payload.
      const chosen = (a: { data: Record<string, unknown> }) => decodeDecision(String(a.data.decision));
      const card = fake.sent.find((s) => s.actions.some((a) => chosen(a)?.requestId === request.requestId));
      const action = card?.actions.find((a) => chosen(a)?.decision === decision);
      if (!card || !action) throw new Error(`teams shows no ${decision} action for ${request.requestId}`);
      const answer = await fake.click(card.id, action.title, userOf(author));
      if (answer.status !== 200) throw new Error(`click answered ${answer.status}`);
    },
    failNext: (status) => fake.failNext(status, status === 429 ? 0.05 : undefined),
    close: () => world.close(),
  };
}
