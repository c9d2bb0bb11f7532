// `agentsvc doctor` against the testkit fakes: good credentials pass; a revoked Telegram token, a
// wrong Slack bot token, wrong Discord, GitHub, WhatsApp and Twilio credentials and a stopped signal-cli
// daemon each fail with the fix; so do a Discord application without the message-content intent and a
// GitHub token that cannot see the approvalDestination's repository.
import {
  DiscordFake,
  FakeGitHub,
  FakeSignalDaemon,
  FakeTwilio,
  FakeWhatsApp,
  SlackFake,
  TelegramFake,
} from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkAdapters, run, tempDir, writeFiles } from "./helpers.js";

let telegram: TelegramFake;
let slack: SlackFake;
let discord: DiscordFake;
let signal: FakeSignalDaemon;
let github: FakeGitHub;
let whatsapp: FakeWhatsApp;
let twilio: FakeTwilio;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  telegram = await TelegramFake.start();
  slack = await SlackFake.start();
  discord = await DiscordFake.start();
  signal = await FakeSignalDaemon.start({ accounts: ["+15550001"] });
  github = await FakeGitHub.start({ token: "ghp_good", webhookSecret: "whs", botName: "agent-bot" });
  whatsapp = await FakeWhatsApp.start({
    appSecret: "app-secret",
    accessToken: "wa-token",
    phoneNumberId: "1065",
    verifyToken: "vt",
  });
  twilio = await FakeTwilio.start({ accountSid: "AC123", authToken: "tw-token", number: "+15550009999" });
  dir = linkAdapters(tempDir("agentsvc-doctor-"));
  writeFiles(dir, {
    "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
    "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TG_TOKEN\napiBaseUrl: ${telegram.url}\n`,
    "gateways/slack.yaml": `type: slack\nbotTokenEnvVar: SLACK_BOT\nappTokenEnvVar: SLACK_APP\napiBaseUrl: ${slack.apiBaseUrl}\n`,
    "gateways/discord.yaml": `type: discord\nbotTokenEnvVar: DISCORD_TOKEN\napiBaseUrl: ${discord.apiBaseUrl}\n`,
    "gateways/signal.yaml": `type: signal\naccountEnvVar: SIGNAL_ACCOUNT\nhttpUrl: ${signal.url}\n`,
    "gateways/github.yaml": `type: github\ntokenEnvVar: GH_TOKEN\nwebhookSecretEnvVar: GH_SECRET\nbotNameEnvVar: GH_BOT\napprovalDestination: "repo:octo-org/hello-world:issue:1"\napiBaseUrl: ${github.url}\n`,
    "gateways/twilio.yaml": `type: twilio\naccountSidEnvVar: TW_SID\nauthTokenEnvVar: TW_TOKEN\nfromEnvVar: TW_FROM\napiBaseUrl: ${twilio.url}\n`,
    "gateways/whatsapp.yaml": `type: whatsapp\naccessTokenEnvVar: WA_TOKEN\nphoneNumberIdEnvVar: WA_PHONE\nappSecretEnvVar: WA_SECRET\nverifyTokenEnvVar: WA_VERIFY\napiBaseUrl: ${whatsapp.url}\n`,
  });
  env = {
    TG_TOKEN: telegram.token,
    SLACK_BOT: slack.botToken,
    SLACK_APP: slack.appToken,
    DISCORD_TOKEN: discord.token,
    SIGNAL_ACCOUNT: "+15550001",
    GH_TOKEN: "ghp_good",
    GH_SECRET: "whs",
    GH_BOT: "agent-bot",
    WA_TOKEN: "wa-token",
    TW_SID: "AC123",
    TW_TOKEN: "tw-token",
    TW_FROM: "+15550009999",
    WA_PHONE: "1065",
    WA_SECRET: "app-secret",
    WA_VERIFY: "vt",
  };
});

afterAll(async () => {
  await telegram?.close();
  await slack?.close();
  await discord?.close();
  await signal?.close().catch(() => {});
  await github?.close();
  await whatsapp?.close();
  await twilio?.close();
});

interface Report {
  ok: boolean;
  checks: { check: string; status: string; detail: string; fix?: string }[];
}

describe("agentsvc doctor", () => {
  it("passes every live check with working credentials", async () => {
    const r = await run(["doctor", dir, "--json"], { env });
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks.map((c) => [c.check, c.status])).toEqual([
      ["discord /users/@me", "ok"],
      ["discord /gateway/bot", "ok"],
      ["discord message content intent", "ok"],
      ["github GET /user", "ok"],
      ["github repository octo-org/hello-world", "ok"],
      ["signal-cli daemon /api/v1/check", "ok"],
      ["slack auth.test", "ok"],
      ["slack apps.connections.open", "ok"],
      ["telegram getMe", "ok"],
      ["twilio account", "ok"],
      ["whatsapp phone number", "ok"],
    ]);
    // The Slack fake answers auth.test with the bot user's and the workspace's names, as Slack does.
    expect(report.checks.find((c) => c.check === "slack auth.test")?.detail).toBe(
      `${slack.workspace.botUserName} in ${slack.workspace.teamName}`,
    );
    expect(report.ok).toBe(true);
    expect(r.code).toBe(0);
  });

  it("reports each bad credential with its fix in a table, and exits 1", async () => {
    telegram.revokeToken();
    const bad = {
      ...env,
      SLACK_BOT: "xoxb-wrong",
      DISCORD_TOKEN: "wrong",
      GH_TOKEN: "ghp_old",
      WA_TOKEN: "expired",
      TW_TOKEN: "rotated",
    };
    delete (bad as Record<string, string | undefined>).SLACK_APP;
    await signal.close();
    const r = await run(["doctor", dir], { env: bad });
    expect(r.code).toBe(1);
    const out = r.stdout;
    expect(out).toMatch(/FAILED\s+telegram getMe\s+401/);
    expect(out).toMatch(/fix: the token in TG_TOKEN was refused: copy the bot's token from @BotFather/);
    expect(out).toMatch(/FAILED\s+slack auth\.test\s+invalid_auth/);
    expect(out).toMatch(/fix: SLACK_BOT must hold the app's Bot User OAuth Token/);
    expect(out).toMatch(/FAILED\s+slack apps\.connections\.open\s+SLACK_APP is not set/);
    expect(out).toMatch(/FAILED\s+discord \/users\/@me\s+401/);
    expect(out).toMatch(/fix: DISCORD_TOKEN must hold the bot's token/);
    expect(out).toMatch(/FAILED\s+signal-cli daemon \/api\/v1\/check/);
    expect(out).toMatch(/FAILED\s+github GET \/user\s+401 Bad credentials/);
    expect(out).toMatch(/fix: GH_TOKEN must hold a current token/);
    expect(out).toMatch(/FAILED\s+whatsapp phone number\s+401 190 Invalid OAuth access token/);
    expect(out).toMatch(/fix: WA_TOKEN was refused/);
    expect(out).toMatch(/FAILED\s+twilio account\s+401 20003 Authenticate/);
    expect(out).toMatch(/fix: check TW_SID \(AC\.\.\.\) and TW_TOKEN/);
    expect(out).toContain("8 of 8 checks failed");
    const json = JSON.parse((await run(["doctor", dir, "--json"], { env: bad })).stdout) as Report;
    expect(json.ok).toBe(false);
    expect(json.checks.every((c) => c.status === "failed" && c.fix)).toBe(true);
  });

  it("reports a Discord application without the message-content intent and a repository the token cannot see", async () => {
    const other = linkAdapters(tempDir("agentsvc-doctor-access-"));
    writeFiles(other, {
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
      "gateways/discord.yaml": `type: discord\nbotTokenEnvVar: DISCORD_TOKEN\napiBaseUrl: ${discord.apiBaseUrl}\n`,
      "gateways/github.yaml": `type: github\ntokenEnvVar: GH_TOKEN\nwebhookSecretEnvVar: GH_SECRET\nbotNameEnvVar: GH_BOT\napprovalDestination: "repo:octo-org/private-app:issue:7"\napiBaseUrl: ${github.url}\n`,
    });
    const flags = discord.applicationFlags;
    discord.applicationFlags = 1 << 23; // APPLICATION_COMMAND_BADGE only: the toggle is off
    try {
      const r = await run(["doctor", other, "--json"], { env });
      const report = JSON.parse(r.stdout) as Report;
      expect(r.code).toBe(1);
      expect(report.checks.map((c) => [c.check, c.status])).toEqual([
        ["discord /users/@me", "ok"],
        ["discord /gateway/bot", "ok"],
        ["discord message content intent", "failed"],
        ["github GET /user", "ok"],
        ["github repository octo-org/private-app", "failed"],
      ]);
      const [intent, repo] = report.checks.filter((c) => c.status === "failed");
      expect(intent?.detail).toBe("the application's flags (8388608) allow no message content");
      expect(intent?.fix).toMatch(
        /turn on Message Content Intent \(Developer Portal > Bot > Privileged Gateway Intents/,
      );
      expect(repo?.detail).toBe("404 Not Found");
      expect(repo?.fix).toMatch(/the token in GH_TOKEN cannot see octo-org\/private-app: add the repository/);
      // An entry that does not ask for message content (intents without 1 << 15) does not need the flag.
      writeFiles(other, {
        "gateways/discord.yaml": `type: discord\nbotTokenEnvVar: DISCORD_TOKEN\nintents: 4609\napiBaseUrl: ${discord.apiBaseUrl}\n`,
      });
      const lean = JSON.parse((await run(["doctor", other, "--json"], { env })).stdout) as Report;
      expect(lean.checks.map((c) => c.check)).not.toContain("discord message content intent");
      // A bot that used up its daily session starts (GET /gateway/bot, session_start_limit:
      // https://discord.com/developers/docs/events/gateway#session-start-limit-object).
      discord.failNext("GET /gateway/bot", {
        status: 200,
        headers: {},
        body: {
          url: "wss://gateway.discord.gg",
          shards: 1,
          session_start_limit: { total: 1000, remaining: 0, reset_after: 3_540_000, max_concurrency: 1 },
        },
      });
      const spent = JSON.parse((await run(["doctor", other, "--json"], { env })).stdout) as Report;
      expect(spent.checks.find((c) => c.check === "discord /gateway/bot")).toEqual({
        check: "discord /gateway/bot",
        status: "failed",
        detail: "no session starts left (reset in 59 min)",
        fix: "the bot used up its daily gateway connections (a restart loop?): wait for the reset",
      });
    } finally {
      discord.applicationFlags = flags;
    }
  });

  it("stops at check's errors before any live call", async () => {
    const broken = tempDir("agentsvc-doctor-broken-");
    writeFiles(broken, { "gateways/hook.yaml": "type: http\n" });
    const r = await run(["doctor", broken], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("gateways/hook.yaml: secretEnvVar: is required");
    expect(r.stdout).not.toContain("checks");
  });
});
