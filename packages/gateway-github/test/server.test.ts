// Through the real server: `createServer` mounts the gateway at /webhooks/github from a project
// entry, and a signed mention from the fake becomes a turn whose reply is a comment at the fake.
// The server imports the adapter the way it does in production, from its build (dist/): build first.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { type RunningServer, startServer } from "@agentsvc/server";
import { FakeGitHub } from "@agentsvc/testkit";
import { eventually } from "@agentsvc/testkit/session";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";

const fixture = resolve(import.meta.dirname, "fixtures/server-project");
const env = { GH_TOKEN: "ghs_x", GH_WEBHOOK_SECRET: "hook-secret", GH_BOT_NAME: "helper" };
const alice = { login: "alice", id: 1, type: "User" as const };
let fake: FakeGitHub;
let server: RunningServer;

beforeAll(async () => {
  rmSync(join(fixture, "data"), { recursive: true, force: true });
  fake = await FakeGitHub.start({
    token: env.GH_TOKEN,
    webhookSecret: env.GH_WEBHOOK_SECRET,
    botName: env.GH_BOT_NAME,
  });
  const loaded = await loadProject(fixture);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  // The entry's apiBaseUrl (a GitHub Enterprise-style base) points at the fake started above.
  const project = {
    ...loaded.project,
    pushGateways: loaded.project.pushGateways.map((g) => ({ ...g, apiBaseUrl: fake.url })),
  };
  server = await startServer(project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env,
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-gh-build-")),
    interactive: false,
  });
  fake.webhookUrl = `${server.url}/webhooks/github`;
});

afterAll(async () => {
  await server?.shutdown();
  await fake?.close();
  rmSync(join(fixture, "data"), { recursive: true, force: true });
});

it("turns a signed mention into a comment, acknowledges ping, and refuses a forged delivery", async () => {
  expect((await fake.ping()).status).toBe(200);
  const forged = await fake.deliver("issue_comment", "{}", "d-forged", {
    "content-type": "application/json",
    "x-github-event": "issue_comment",
    "x-github-delivery": "d-forged",
    "x-hub-signature-256": fake.sign("{}", "wrong"),
  });
  expect(forged.status).toBe(401);
  const answer = await fake.commentOnIssue({ number: 3, body: "@helper through the server", user: alice });
  expect(answer.status).toBe(200);
  await eventually(() => fake.posted.length > 0, "the comment", 15_000);
  expect(fake.posted).toHaveLength(1);
  expect(fake.posted[0]).toMatchObject({ target: "issues/3" });
  expect(fake.posted[0]?.body).toContain("through the server");
});
