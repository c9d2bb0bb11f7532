// Through the real server: it mounts the gateway at /webhooks/github from a project entry, and a
// signed mention from the fake becomes a turn whose reply is a comment at the fake.
// The server imports the adapter the way it does in production, from its build (dist/): build first.
import { resolve } from "node:path";
import { FakeGitHub } from "@agentsvc/testkit";
import { type ProjectServer, startProjectServer } from "@agentsvc/testkit/server";
import { eventually } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, expect, it } from "vitest";

const env = { GH_TOKEN: "ghs_x", GH_WEBHOOK_SECRET: "hook-secret", GH_BOT_NAME: "helper" };
let fake: FakeGitHub;
let server: ProjectServer;

beforeAll(async () => {
  fake = await FakeGitHub.start({
    token: env.GH_TOKEN,
    webhookSecret: env.GH_WEBHOOK_SECRET,
    botName: env.GH_BOT_NAME,
  });
  server = await startProjectServer(resolve(import.meta.dirname, "fixtures/server-project"), {
    env,
    // A GitHub Enterprise-style API base pointing at the fake.
    patchGateway: (entry) => ({ ...entry, apiBaseUrl: fake.url }),
  });
  fake.webhookUrl = server.webhookUrl("github");
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
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
  const alice = { login: "alice", id: 1, type: "User" as const };
  const answer = await fake.commentOnIssue({ number: 3, body: "@helper through the server", user: alice });
  expect(answer.status).toBe(200);
  await eventually(() => fake.posted.length > 0, "the comment", 15_000);
  expect(fake.posted).toHaveLength(1);
  expect(fake.posted[0]).toMatchObject({ target: "issues/3" });
  expect(fake.posted[0]?.body).toContain("through the server");
});
