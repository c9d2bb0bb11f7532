// Through the real server: `createServer` mounts the gateway at /webhooks/teams from a project
// entry, and an activity with a connector JWT from the fake becomes a turn whose reply reaches it.
// The server imports the adapter the way it does in production, from its build (dist/): build first.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { type RunningServer, startServer } from "@agentsvc/server";
import { FakeTeams } from "@agentsvc/testkit";
import { eventually } from "@agentsvc/testkit/session";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";

const fixture = resolve(import.meta.dirname, "fixtures/server-project");
const env = { TEAMS_APP_ID: "app-0001", TEAMS_APP_PASSWORD: "pw" };
const alice = { id: "29:alice", name: "Alice", aadObjectId: "aad-alice" };
let fake: FakeTeams;
let server: RunningServer;

beforeAll(async () => {
  rmSync(join(fixture, "data"), { recursive: true, force: true });
  fake = await FakeTeams.start({ appId: env.TEAMS_APP_ID, appPassword: env.TEAMS_APP_PASSWORD });
  const loaded = await loadProject(fixture);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  // The entry's identity and connector URLs point at the fake started above.
  const project = {
    ...loaded.project,
    pushGateways: loaded.project.pushGateways.map((g) => ({
      ...g,
      openIdMetadataUrl: fake.openIdMetadataUrl,
      loginBaseUrl: fake.loginBaseUrl,
      serviceUrl: fake.serviceUrl,
    })),
  };
  server = await startServer(project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env,
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-teams-build-")),
    interactive: false,
  });
  fake.webhookUrl = `${server.url}/webhooks/teams`;
});

afterAll(async () => {
  await server?.shutdown();
  await fake?.close();
  rmSync(join(fixture, "data"), { recursive: true, force: true });
});

it("turns an authenticated activity into a reply through the connector, refusing an expired token", async () => {
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
