// A schedule to each push platform through the composed server and that platform's fake: the tick's
// reply lands where `to.thread` says (a Slack channel and a DM, a Discord channel, a GitHub issue, a
// Signal number, an SMS number, a Teams conversation the bot is in), and an unreachable target fails
// visibly: an SMS number that replied STOP (Twilio error 21610, https://www.twilio.com/docs/api/errors/21610)
// and a Teams conversation the bot is not in (403 BotNotInConversationRoster,
// https://learn.microsoft.com/en-us/microsoftteams/platform/bots/build-conversational-capability#status-codes-from-bot-conversational-apis)
// end dead with the platform's error as the schedule's last error. The adapters are linked as an
// installed app has them.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import {
  DiscordFake,
  eventually,
  FakeGitHub,
  FakeTeams,
  FakeTwilio,
  SlackFake,
  type FakeSignalDaemon,
  startSignalDaemon,
} from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProjectServer, startProjectServer } from "../src/testing.js";

const REPLY = "Digest: 3 open issues.";
const SIGNAL_ACCOUNT = "+15550000001";
const tw = {
  TW_ACCOUNT_SID: "AC00000000000000000000000000000001",
  TW_AUTH_TOKEN: "auth",
  TW_FROM: "+15005550006",
};
const gh = { GH_TOKEN: "ghs_x", GH_WEBHOOK_SECRET: "hook-secret", GH_BOT_NAME: "helper" };
const teamsEnv = { TEAMS_APP_ID: "app-0001", TEAMS_APP_PASSWORD: "pw" };

let root: string;
let server: ProjectServer;
let slack: SlackFake;
let discord: DiscordFake;
let github: FakeGitHub;
let signal: FakeSignalDaemon;
let twilio: FakeTwilio;
let teams: FakeTeams;

const SCHEDULES: Record<string, string> = {
  "slack-channel": "{ gateway: slack, thread: C0DIGEST }",
  "slack-dm": "{ gateway: slack, thread: D0GRACE }",
  discord: "{ gateway: discord, thread: '810000000000000001' }",
  github: "{ gateway: github, thread: 'repo:octo-org/hello-world:issue:3' }",
  signal: "{ gateway: signal, thread: '+15550000002' }",
  sms: "{ gateway: twilio, thread: '+15550001' }",
  "sms-stopped": "{ gateway: twilio, thread: '+15550009' }",
  teams: "{ gateway: teams, thread: 'a:known' }",
  "teams-unknown": "{ gateway: teams, thread: 'a:never-seen' }",
};

beforeAll(async () => {
  [slack, discord, github, signal, twilio, teams] = await Promise.all([
    SlackFake.start(),
    DiscordFake.start({ heartbeatIntervalMs: 5_000 }),
    FakeGitHub.start({ token: gh.GH_TOKEN, webhookSecret: gh.GH_WEBHOOK_SECRET, botName: gh.GH_BOT_NAME }),
    startSignalDaemon({ accounts: [SIGNAL_ACCOUNT] }),
    FakeTwilio.start({ accountSid: tw.TW_ACCOUNT_SID, authToken: tw.TW_AUTH_TOKEN, number: tw.TW_FROM }),
    FakeTeams.start({ appId: teamsEnv.TEAMS_APP_ID, appPassword: teamsEnv.TEAMS_APP_PASSWORD }),
  ]);
  twilio.optedOut.add("+15550009");
  teams.rosterOnly = true;
  // The bot is in this conversation: an activity of it came from there.
  teams.messageActivity({ conversationId: "a:known", from: { id: "29:alice", name: "Alice" }, text: "hi" });
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.schedules-platforms-"));
  for (const d of ["agents", "gateways", "schedules", "node_modules/@agentsvc"])
    mkdirSync(join(root, d), { recursive: true });
  for (const p of ["slack", "discord", "github", "signal", "twilio", "teams"])
    symlinkSync(
      resolve(import.meta.dirname, `../../../packages/gateway-${p}`),
      join(root, `node_modules/@agentsvc/gateway-${p}`),
      "dir",
    );
  const files: Record<string, string> = {
    "package.json": JSON.stringify({ name: "schedules-platforms-fixture", private: true, type: "module" }),
    "agents/ops.mjs": `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "ops", model: { provider: "demo", script: [{ text: "${REPLY}" }] }, memory: { type: "window" } });\n`,
    "gateways/slack.yaml": `type: slack\nbotTokenEnvVar: SLACK_BOT_TOKEN\nappTokenEnvVar: SLACK_APP_TOKEN\napiBaseUrl: ${slack.apiBaseUrl}\n`,
    "gateways/discord.yaml": `type: discord\nbotTokenEnvVar: DISCORD_BOT_TOKEN\napiBaseUrl: ${discord.apiBaseUrl}\n`,
    "gateways/github.yaml": `type: github\ntokenEnvVar: GH_TOKEN\nwebhookSecretEnvVar: GH_WEBHOOK_SECRET\nbotNameEnvVar: GH_BOT_NAME\napiBaseUrl: ${github.url}\n`,
    "gateways/signal.yaml": `type: signal\naccountEnvVar: SIGNAL_ACCOUNT\nhttpUrl: ${signal.url}\n`,
    "gateways/twilio.yaml": `type: twilio\naccountSidEnvVar: TW_ACCOUNT_SID\nauthTokenEnvVar: TW_AUTH_TOKEN\nfromEnvVar: TW_FROM\napiBaseUrl: ${twilio.url}\n`,
    "gateways/teams.yaml": `type: teams\nappIdEnvVar: TEAMS_APP_ID\nappPasswordEnvVar: TEAMS_APP_PASSWORD\nopenIdMetadataUrl: ${teams.openIdMetadataUrl}\nloginBaseUrl: ${teams.loginBaseUrl}\nserviceUrl: ${teams.serviceUrl}\n`,
  };
  for (const [name, to] of Object.entries(SCHEDULES))
    files[`schedules/${name}.yaml`] = `every: 10s\nprompt: Write the digest\nto: ${to}\n`;
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(root, rel), text);
  server = await startProjectServer(root, {
    env: {
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      DISCORD_BOT_TOKEN: discord.token,
      SIGNAL_ACCOUNT,
      ...gh,
      ...tw,
      ...teamsEnv,
    },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([slack, discord, github, signal, twilio, teams].map((f) => f?.close()));
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Each schedule's ticks, newest first. */
async function ticks() {
  const db = ChatDb.open({ appRoot: root, path: "data/agentsvc.db" });
  try {
    const out: Record<string, Awaited<ReturnType<typeof db.scheduleTicks.recent>>> = {};
    for (const name of Object.keys(SCHEDULES)) out[name] = await db.scheduleTicks.recent(name);
    return out;
  } finally {
    db.close();
  }
}

describe("a schedule to each push platform, against its fake", () => {
  it("delivers into each target, and ends dead with the platform's error where the target cannot be reached", async () => {
    const reachable = Object.keys(SCHEDULES).filter((n) => n !== "sms-stopped" && n !== "teams-unknown");
    await eventually(
      async () => {
        const t = await ticks();
        return (
          reachable.every((n) => t[n]?.some((x) => x.outcome === "delivered")) &&
          t["sms-stopped"]!.some((x) => x.outcome === "dead") &&
          t["teams-unknown"]!.some((x) => x.outcome === "dead")
        );
      },
      "every schedule's first outcome",
      45_000,
    );
    const t = await ticks();
    expect(t["sms-stopped"]!.find((x) => x.outcome === "dead")?.error).toContain("21610");
    expect(t["teams-unknown"]!.find((x) => x.outcome === "dead")?.error).toContain(
      "BotNotInConversationRoster",
    );
    for (const n of ["sms-stopped", "teams-unknown"])
      expect(t[n]!.map((x) => x.outcome)).not.toContain("delivered");

    const slackTo = (channel: string) =>
      slack.workspace.botMessages.filter((m) => m.channel === channel).map((m) => m.text);
    expect(slackTo("C0DIGEST")).toContain(REPLY);
    expect(slackTo("D0GRACE")).toContain(REPLY);
    expect(discord.rest.botMessages.find((m) => m.channelId === "810000000000000001")?.content).toBe(REPLY);
    expect(github.posted.find((p) => p.target === "issues/3")?.body).toContain(REPLY);
    expect(signal.sent.find((s) => s.recipient === "+15550000002")?.message).toBe(REPLY);
    expect(twilio.sent.find((s) => s.to === "+15550001")?.body).toBe(REPLY);
    expect(twilio.sent.some((s) => s.to === "+15550009")).toBe(false);
    expect(teams.sent.find((s) => s.conversationId === "a:known")?.text).toBe(REPLY);
  }, 60_000);
});
