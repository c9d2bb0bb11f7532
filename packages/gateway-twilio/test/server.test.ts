// Through the real server: it mounts the gateway at /webhooks/twilio from a project entry, and a
// signed SMS from the fake becomes a turn whose reply reaches the fake.
// The server imports the adapter the way it does in production, from its build (dist/): build first.
import { resolve } from "node:path";
import { FakeTwilio } from "@agentsvc/testkit";
import { type ProjectServer, startProjectServer } from "@agentsvc/testkit/server";
import { eventually } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, expect, it } from "vitest";

const env = {
  TW_ACCOUNT_SID: "AC00000000000000000000000000000001",
  TW_AUTH_TOKEN: "auth-token",
  TW_FROM: "+15005550006",
};
let fake: FakeTwilio;
let server: ProjectServer;

beforeAll(async () => {
  fake = await FakeTwilio.start({
    accountSid: env.TW_ACCOUNT_SID,
    authToken: env.TW_AUTH_TOKEN,
    number: env.TW_FROM,
  });
  server = await startProjectServer(resolve(import.meta.dirname, "fixtures/server-project"), {
    env,
    patchGateway: (entry) => ({ ...entry, apiBaseUrl: fake.url }),
  });
  fake.webhookUrl = server.webhookUrl("twilio");
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

it("answers a signed SMS with empty TwiML and replies through the Messages API, refusing a forged one", async () => {
  const params = fake.smsParams({ from: "+15550001", body: "forged" });
  const forged = await fake.deliver(params, {
    "content-type": "application/x-www-form-urlencoded",
    "x-twilio-signature": fake.sign(params, "not-the-token"),
  });
  expect(forged.status).toBe(401);
  const answer = await fake.deliverSms({ from: "+15550001", body: "through the server" });
  expect(answer).toMatchObject({ status: 200, body: "<Response></Response>" });
  await eventually(() => fake.sent.length > 0, "the reply", 15_000);
  expect(fake.sent).toHaveLength(1);
  expect(fake.sent[0]).toMatchObject({ to: "+15550001", from: env.TW_FROM });
  expect(fake.sent[0]?.body).toContain("through the server");
});
