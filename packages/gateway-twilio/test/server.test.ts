// Through the real server: `createServer` mounts the gateway at /webhooks/twilio from a project
// entry, and a signed SMS from the fake becomes a turn whose reply reaches the fake.
// The server imports the adapter the way it does in production, from its build (dist/): build first.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { type RunningServer, startServer } from "@agentsvc/server";
import { FakeTwilio } from "@agentsvc/testkit";
import { eventually } from "@agentsvc/testkit/session";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";

const fixture = resolve(import.meta.dirname, "fixtures/server-project");
const env = {
  TW_ACCOUNT_SID: "AC00000000000000000000000000000001",
  TW_AUTH_TOKEN: "auth-token",
  TW_FROM: "+15005550006",
};
let fake: FakeTwilio;
let server: RunningServer;

beforeAll(async () => {
  rmSync(join(fixture, "data"), { recursive: true, force: true });
  fake = await FakeTwilio.start({
    accountSid: env.TW_ACCOUNT_SID,
    authToken: env.TW_AUTH_TOKEN,
    number: env.TW_FROM,
  });
  const loaded = await loadProject(fixture);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  // The entry's apiBaseUrl points at the fake started above.
  const project = {
    ...loaded.project,
    pushGateways: loaded.project.pushGateways.map((g) => ({ ...g, apiBaseUrl: fake.url })),
  };
  server = await startServer(project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env,
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-tw-build-")),
    interactive: false,
  });
  fake.webhookUrl = `${server.url}/webhooks/twilio`;
});

afterAll(async () => {
  await server?.shutdown();
  await fake?.close();
  rmSync(join(fixture, "data"), { recursive: true, force: true });
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
