// The webhook adapters through the real server, one row per platform: the server mounts each at
// /webhooks/<type> from a project entry (fixtures/webhook-adapters), a forged request is refused,
// and a genuine one from the platform's fake becomes a turn whose reply reaches the fake.
// The server imports each adapter as in production, from its build (dist/): `pnpm build` first.
import { resolve } from "node:path";
import type { PushGatewayEntry } from "@agentsvc/config-schema";
import { eventually, FakeGitHub, FakeTeams, FakeTwilio, FakeWhatsApp } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProjectServer, startProjectServer } from "../src/testing.js";

/** One platform's fake, running: how its entry points at it, and what it proves through the server. */
interface Rig {
  patch(entry: PushGatewayEntry): PushGatewayEntry;
  /** Points the fake's webhook deliveries at the server. */
  attach(webhookUrl: string): void;
  exercise(): Promise<void>;
  close(): Promise<void>;
}

interface AdapterRow {
  type: "github" | "teams" | "twilio" | "whatsapp";
  behaviour: string;
  env: Record<string, string>;
  start(env: Record<string, string>): Promise<Rig>;
}

const REPLY_MS = 15_000;

const ROWS: AdapterRow[] = [
  {
    type: "github",
    behaviour: "turns a signed mention into a comment, acknowledges ping, and refuses a forged delivery",
    env: { GH_TOKEN: "ghs_x", GH_WEBHOOK_SECRET: "hook-secret", GH_BOT_NAME: "helper" },
    async start(env) {
      const fake = await FakeGitHub.start({
        token: env.GH_TOKEN as string,
        webhookSecret: env.GH_WEBHOOK_SECRET as string,
        botName: env.GH_BOT_NAME as string,
      });
      return {
        // A GitHub Enterprise-style API base pointing at the fake.
        patch: (entry) => ({ ...entry, apiBaseUrl: fake.url }),
        attach: (url) => {
          fake.webhookUrl = url;
        },
        async exercise() {
          expect((await fake.ping()).status).toBe(200);
          const forged = await fake.deliver("issue_comment", "{}", "d-forged", {
            "content-type": "application/json",
            "x-github-event": "issue_comment",
            "x-github-delivery": "d-forged",
            "x-hub-signature-256": fake.sign("{}", "wrong"),
          });
          expect(forged.status).toBe(401);
          const alice = { login: "alice", id: 1, type: "User" as const };
          const answer = await fake.commentOnIssue({
            number: 3,
            body: "@helper through the server",
            user: alice,
          });
          expect(answer.status).toBe(200);
          await eventually(() => fake.posted.length > 0, "the comment", REPLY_MS);
          expect(fake.posted).toHaveLength(1);
          expect(fake.posted[0]).toMatchObject({ target: "issues/3" });
          expect(fake.posted[0]?.body).toContain("through the server");
        },
        close: () => fake.close(),
      };
    },
  },
  {
    type: "teams",
    behaviour:
      "turns an authenticated activity into a reply through the connector, refusing an expired token",
    env: { TEAMS_APP_ID: "app-0001", TEAMS_APP_PASSWORD: "pw" },
    async start(env) {
      const fake = await FakeTeams.start({
        appId: env.TEAMS_APP_ID as string,
        appPassword: env.TEAMS_APP_PASSWORD as string,
      });
      return {
        patch: (entry) => ({
          ...entry,
          openIdMetadataUrl: fake.openIdMetadataUrl,
          loginBaseUrl: fake.loginBaseUrl,
          serviceUrl: fake.serviceUrl,
        }),
        attach: (url) => {
          fake.webhookUrl = url;
        },
        async exercise() {
          const alice = { id: "29:alice", name: "Alice", aadObjectId: "aad-alice" };
          const activity = fake.messageActivity({
            conversationId: "a:1srv",
            from: alice,
            text: "through the server",
          });
          const expired = await fake.deliver(activity, `Bearer ${await fake.token({ expiresIn: -600 })}`);
          expect(expired.status).toBe(401);
          expect((await fake.deliver(activity)).status).toBe(200);
          await eventually(() => fake.sent.length > 0, "the reply", REPLY_MS);
          expect(fake.sent).toHaveLength(1);
          expect(fake.sent[0]).toMatchObject({ conversationId: "a:1srv" });
          expect(fake.sent[0]?.text).toContain("through the server");
        },
        close: () => fake.close(),
      };
    },
  },
  {
    type: "twilio",
    behaviour:
      "answers a signed SMS with empty TwiML and replies through the Messages API, refusing a forged one",
    env: {
      TW_ACCOUNT_SID: "AC00000000000000000000000000000001",
      TW_AUTH_TOKEN: "auth-token",
      TW_FROM: "+15005550006",
    },
    async start(env) {
      const fake = await FakeTwilio.start({
        accountSid: env.TW_ACCOUNT_SID as string,
        authToken: env.TW_AUTH_TOKEN as string,
        number: env.TW_FROM as string,
      });
      return {
        patch: (entry) => ({ ...entry, apiBaseUrl: fake.url }),
        attach: (url) => {
          fake.webhookUrl = url;
        },
        async exercise() {
          const params = fake.smsParams({ from: "+15550001", body: "forged" });
          const forged = await fake.deliver(params, {
            "content-type": "application/x-www-form-urlencoded",
            "x-twilio-signature": fake.sign(params, "not-the-token"),
          });
          expect(forged.status).toBe(401);
          const answer = await fake.deliverSms({ from: "+15550001", body: "through the server" });
          expect(answer).toMatchObject({ status: 200, body: "<Response></Response>" });
          await eventually(() => fake.sent.length > 0, "the reply", REPLY_MS);
          expect(fake.sent).toHaveLength(1);
          expect(fake.sent[0]).toMatchObject({ to: "+15550001", from: env.TW_FROM });
          expect(fake.sent[0]?.body).toContain("through the server");
        },
        close: () => fake.close(),
      };
    },
  },
  {
    type: "whatsapp",
    behaviour: "serves the handshake and turns a signed delivery into a reply, refusing a forged one",
    env: {
      WA_ACCESS_TOKEN: "tok",
      WA_PHONE_NUMBER_ID: "1065",
      WA_APP_SECRET: "app-secret",
      WA_VERIFY_TOKEN: "vt",
    },
    async start(env) {
      const fake = await FakeWhatsApp.start({
        appSecret: env.WA_APP_SECRET as string,
        accessToken: env.WA_ACCESS_TOKEN as string,
        phoneNumberId: env.WA_PHONE_NUMBER_ID as string,
        verifyToken: env.WA_VERIFY_TOKEN as string,
      });
      return {
        patch: (entry) => ({ ...entry, apiBaseUrl: fake.url }),
        attach: (url) => {
          fake.webhookUrl = url;
        },
        async exercise() {
          expect(await fake.handshake("42")).toMatchObject({ status: 200, body: "42" });
          const forged = await fake.deliver(JSON.stringify(fake.notification("15550001", [])), {
            "content-type": "application/json",
            "x-hub-signature-256": fake.sign("something else"),
          });
          expect(forged.status).toBe(401);
          const answer = await fake.deliverText({
            from: "15550001",
            text: "through the server",
            id: "wamid.srv",
          });
          expect(answer.status).toBe(200);
          await eventually(() => fake.sent.length > 0, "the reply", REPLY_MS);
          expect(fake.sent[0]).toMatchObject({ to: "15550001", type: "text" });
          expect(fake.sent[0]?.text).toContain("through the server");
        },
        close: () => fake.close(),
      };
    },
  },
];

describe("webhook adapters through the real server", () => {
  const rigs = new Map<string, Rig>();
  let server: ProjectServer;

  beforeAll(async () => {
    for (const row of ROWS) rigs.set(row.type, await row.start(row.env));
    server = await startProjectServer(resolve(import.meta.dirname, "fixtures/webhook-adapters"), {
      env: Object.assign({}, ...ROWS.map((r) => r.env)),
      patchGateway: (entry) => rigs.get(entry.type)?.patch(entry) ?? entry,
    });
    for (const [type, rig] of rigs) rig.attach(server.webhookUrl(type));
  });

  afterAll(async () => {
    await server?.close();
    for (const rig of rigs.values()) await rig.close();
  });

  for (const row of ROWS) it(`${row.type}: ${row.behaviour}`, () => (rigs.get(row.type) as Rig).exercise());
});
