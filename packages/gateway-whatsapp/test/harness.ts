// The WhatsApp side of the tests: the testkit fake (Graph API + Meta's webhook calls) and a local
// host serving the gateway's webhook routes over real HTTP.
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { FakeWhatsApp, hostWebhooks, type WebhookHost } from "@agentsvc/testkit";
import { decodeDecision } from "@agentsvc/adapter-kit";
import { createGateway, type WhatsappGateway, type WhatsappGatewayOptions } from "../src/index.js";

export const SECRETS = {
  WA_TEST_ACCESS_TOKEN: "EAAG-test-access-token",
  WA_TEST_PHONE_NUMBER_ID: "106540352242922",
  WA_TEST_APP_SECRET: "test-app-secret-5f1c",
  WA_TEST_VERIFY_TOKEN: "verify-me-please",
};
// The contract rig's session reads process.env, as the server does.
Object.assign(process.env, SECRETS);

export interface WhatsappWorld {
  fake: FakeWhatsApp;
  host: WebhookHost;
  /** A fresh gateway pointed at the fake, its routes mounted on the host. */
  build(extra?: Partial<WhatsappGatewayOptions>): WhatsappGateway;
  close(): Promise<void>;
}

export async function whatsappWorld(): Promise<WhatsappWorld> {
  const host = await hostWebhooks();
  const fake = await FakeWhatsApp.start({
    appSecret: SECRETS.WA_TEST_APP_SECRET,
    accessToken: SECRETS.WA_TEST_ACCESS_TOKEN,
    phoneNumberId: SECRETS.WA_TEST_PHONE_NUMBER_ID,
    verifyToken: SECRETS.WA_TEST_VERIFY_TOKEN,
    webhookUrl: host.urlOf("whatsapp"),
  });
  return {
    fake,
    host,
    build(extra = {}) {
      const gateway = createGateway({
        name: "whatsapp",
        accessTokenEnvVar: "WA_TEST_ACCESS_TOKEN",
        phoneNumberIdEnvVar: "WA_TEST_PHONE_NUMBER_ID",
        appSecretEnvVar: "WA_TEST_APP_SECRET",
        verifyTokenEnvVar: "WA_TEST_VERIFY_TOKEN",
        apiBaseUrl: fake.url,
        ...extra,
      });
      host.mount("whatsapp", gateway.webhooks);
      return gateway as WhatsappGateway;
    },
    close: async () => {
      await host.close();
      await fake.close();
    },
  };
}

/** Contract harness: threads are the users' WhatsApp ids; a message's author is its sender. */
export async function whatsappHarness(): Promise<GatewayHarness> {
  const world = await whatsappWorld();
  const { fake } = world;
  return {
    gateway: () => world.build(),
    threads: ["15550001111", "15550002222"],
    inject: async (m) => {
      await fake.deliverAcknowledged(
        fake.notification(m.thread, [
          { from: m.thread, id: m.id, timestamp: nowSeconds(), type: "text", text: { body: m.text } },
        ]),
      );
    },
    sent: async () => fake.sent.map((s) => ({ thread: s.to, text: s.text })),
    choose: async (request, decision) => {
      const shown = fake.sent.find(
        (s) =>
          s.to === request.thread &&
          s.options.some((o) => decodeDecision(o.id)?.requestId === request.requestId),
      );
      const option = shown?.options.find((o) => decodeDecision(o.id)?.decision === decision);
      if (!shown || !option) throw new Error(`whatsapp shows no ${decision} button for ${request.requestId}`);
      const answer = await fake.press(request.thread, shown.id, option.id);
      if (answer.status !== 200) throw new Error(`press answered ${answer.status}`);
    },
    failNext: (status) => fake.failNext(status, status === 429 ? 0.05 : undefined),
    close: () => world.close(),
  };
}

/** A message `timestamp` as Meta writes it: Unix seconds, as a string. */
export function nowSeconds(): string {
  return String(Math.floor(Date.now() / 1000));
}
