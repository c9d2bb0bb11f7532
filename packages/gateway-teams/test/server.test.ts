// Through the real server: it mounts the gateway at /webhooks/teams from a project entry, and an
// activity with a connector JWT from the fake becomes a turn whose reply reaches the connector.
// The server imports the adapter the way it does in production, from its build (dist/): build first.
import { resolve } from "node:path";
import { FakeTeams } from "@agentsvc/testkit";
import { type ProjectServer, startProjectServer } from "@agentsvc/testkit/server";
import { eventually } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, expect, it } from "vitest";

const env = { TEAMS_APP_ID: "app-0001", TEAMS_APP_PASSWORD: "pw" };
let fake: FakeTeams;
let server: ProjectServer;

beforeAll(async () => {
  fake = await FakeTeams.start({ appId: env.TEAMS_APP_ID, appPassword: env.TEAMS_APP_PASSWORD });
  server = await startProjectServer(resolve(import.meta.dirname, "fixtures/server-project"), {
    env,
    patchGateway: (entry) => ({
      ...entry,
      openIdMetadataUrl: fake.openIdMetadataUrl,
      loginBaseUrl: fake.loginBaseUrl,
      serviceUrl: fake.serviceUrl,
    }),
  });
  fake.webhookUrl = server.webhookUrl("teams");
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

it("turns an authenticated activity into a reply through the connector, refusing an expired token", async () => {
  const alice = { id: "29:alice", name: "Alice", aadObjectId: "aad-alice" };
  const activity = fake.messageActivity({
    conversationId: "a:1srv",
    from: alice,
    text: "through the server",
  });
  const expired = await fake.deliver(activity, `Bearer ${await fake.token({ expiresIn: -600 })}`);
  expect(expired.status).toBe(401);
  expect((await fake.deliver(activity)).status).toBe(200);
  await eventually(() => fake.sent.length > 0, "the reply", 15_000);
  expect(fake.sent).toHaveLength(1);
  expect(fake.sent[0]).toMatchObject({ conversationId: "a:1srv" });
  expect(fake.sent[0]?.text).toContain("through the server");
});
