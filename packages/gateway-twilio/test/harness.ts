// The Twilio side of the tests: the testkit fake (Messages REST API + Twilio's signed webhook calls)
// and a local host serving the gateway's webhook route over real HTTP.
import { createHash } from "node:crypto";
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { FakeTwilio, hostWebhooks, type WebhookHost } from "@agentsvc/testkit";
import { createGateway, type TwilioGateway, type TwilioGatewayOptions } from "../src/index.js";

export const SECRETS = {
  TW_TEST_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
  TW_TEST_AUTH_TOKEN: "test-auth-token-9d2e",
  TW_TEST_FROM: "+15005550006",
};
Object.assign(process.env, SECRETS);

export interface TwilioWorld {
  fake: FakeTwilio;
  host: WebhookHost;
  build(extra?: Partial<TwilioGatewayOptions>): TwilioGateway;
  close(): Promise<void>;
}

export async function twilioWorld(hostOptions: { publicBaseUrl?: string } = {}): Promise<TwilioWorld> {
  const host = await hostWebhooks(hostOptions);
  const fake = await FakeTwilio.start({
    accountSid: SECRETS.TW_TEST_ACCOUNT_SID,
    authToken: SECRETS.TW_TEST_AUTH_TOKEN,
    number: SECRETS.TW_TEST_FROM,
    webhookUrl: host.urlOf("twilio"),
  });
  return {
    fake,
    host,
    build(extra = {}) {
      const gateway = createGateway({
        name: "twilio",
        accountSidEnvVar: "TW_TEST_ACCOUNT_SID",
        authTokenEnvVar: "TW_TEST_AUTH_TOKEN",
        fromEnvVar: "TW_TEST_FROM",
        apiBaseUrl: fake.url,
        ...extra,
      });
      host.mount("twilio", gateway.webhooks);
      return gateway as TwilioGateway;
    },
    close: async () => {
      await host.close();
      await fake.close();
    },
  };
}

export async function twilioHarness(): Promise<GatewayHarness> {
  const world = await twilioWorld();
  const { fake } = world;
  return {
    gateway: () => world.build(),
    threads: ["+15550001111", "+15550002222"],
    inject: async (m) => {
      await fake.deliverAcknowledged({ from: m.thread, body: m.text, sid: messageSid(m.id) });
    },
    sent: async () => fake.sent.map((s) => ({ thread: s.to, text: s.body })),
    failNext: (status) => fake.failNext(status, status === 429 ? 0.05 : undefined),
    close: () => world.close(),
  };
}

/** A Twilio-shaped MessageSid (SM + 32 hex digits) standing for a contract message id. */
export function messageSid(id: string): string {
  return `SM${createHash("md5").update(id).digest("hex")}`;
}
