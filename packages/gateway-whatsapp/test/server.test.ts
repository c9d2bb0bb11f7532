// Through the real server: it mounts the gateway at /webhooks/whatsapp from a project entry, and a
// signed delivery from the fake becomes a turn whose reply reaches the fake.
// The server imports the adapter the way it does in production, from its build (dist/): build first.
import { resolve } from "node:path";
import { FakeWhatsApp } from "@agentsvc/testkit";
import { type ProjectServer, startProjectServer } from "@agentsvc/testkit/server";
import { eventually } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, expect, it } from "vitest";

const env = {
  WA_ACCESS_TOKEN: "tok",
  WA_PHONE_NUMBER_ID: "1065",
  WA_APP_SECRET: "app-secret",
  WA_VERIFY_TOKEN: "vt",
};
let fake: FakeWhatsApp;
let server: ProjectServer;

beforeAll(async () => {
  fake = await FakeWhatsApp.start({
    appSecret: env.WA_APP_SECRET,
    accessToken: env.WA_ACCESS_TOKEN,
    phoneNumberId: env.WA_PHONE_NUMBER_ID,
    verifyToken: env.WA_VERIFY_TOKEN,
  });
  server = await startProjectServer(resolve(import.meta.dirname, "fixtures/server-project"), {
    env,
    patchGateway: (entry) => ({ ...entry, apiBaseUrl: fake.url }),
  });
  fake.webhookUrl = server.webhookUrl("whatsapp");
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

it("serves the handshake and turns a signed delivery into a reply, refusing a forged one", async () => {
  expect(await fake.handshake("42")).toMatchObject({ status: 200, body: "42" });
  const forged = await fake.deliver(JSON.stringify(fake.notification("15550001", [])), {
    "content-type": "application/json",
    "x-hub-signature-256": fake.sign("something else"),
  });
  expect(forged.status).toBe(401);
  const answer = await fake.deliverText({ from: "15550001", text: "through the server", id: "wamid.srv" });
  expect(answer.status).toBe(200);
  await eventually(() => fake.sent.length > 0, "the reply", 15_000);
  expect(fake.sent[0]).toMatchObject({ to: "15550001", type: "text" });
  expect(fake.sent[0]?.text).toContain("through the server");
});
