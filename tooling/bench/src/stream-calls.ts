// Platform calls per streamed reply, on each platform that streams: a real session over a durable
// SQLite store with each adapter against its testkit fake, and the demo model
// writing 20 tokens at 200 ms (4 s of writing). Each reply counts the platform calls that show it
// (post, edit, draft, stream append/stop, streaming activity), streaming on at the default 1 s
// interval beside the same replies with `streaming: false`, in the same run.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { createGateway as discordGateway } from "@agentsvc/gateway-discord";
import { createGateway as slackGateway } from "@agentsvc/gateway-slack";
import { TeamsGateway } from "@agentsvc/gateway-teams";
import { createGateway as telegramGateway } from "@agentsvc/gateway-telegram";
import { DiscordFake, eventually, FakeTeams, hostWebhooks, SlackFake, TelegramFake } from "@agentsvc/testkit";
import { createGatewaySession, type Gateway, GatewayRegistry } from "@agentsvc/session-core";
import { pino } from "pino";
import { fmt, type Row } from "./stats.ts";

const REPLIES = 3;
const TEXT = Array.from({ length: 20 }, (_, i) => `word${i + 1}`).join(" ");
const TOKEN_DELAY_MS = 200;

/** A session running `gateway` alone, the demo model answering TEXT slowly. */
async function startSessionRig(
  gateway: Gateway,
  options: { streaming: boolean },
): Promise<{ session: { idle(ms: number): Promise<void> }; stop(): Promise<void> }> {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-stream-"));
  const db = ChatDb.open({ appRoot: root, path: "./chat.db" });
  const logger = pino({ level: "silent" });
  const registry = new GatewayRegistry(logger);
  registry.register(gateway);
  const agent = defineAgent({
    name: "bench",
    model: { provider: "demo", script: [{ text: TEXT }], tokenDelayMs: TOKEN_DELAY_MS },
  });
  const runs = new RunManager({
    agent,
    memory: db.createMemory({ canSummarize: false }),
    runStore: db.runStore,
    logger,
  });
  await runs.ready();
  const session = createGatewaySession({
    runs,
    store: db,
    registry,
    agent,
    entries: [{ name: gateway.name, type: gateway.type, streaming: options.streaming }],
    loggers: { root: logger },
  });
  await session.start();
  return {
    session,
    stop: async () => {
      await session.stop(2_000);
      db.close();
    },
  };
}

interface Platform {
  name: string;
  /** Streams `REPLIES` replies (each to a new chat) and returns the calls that showed them, and 429s. */
  run(streaming: boolean): Promise<{ calls: number; limited: number }>;
}

const discord: Platform = {
  name: "Discord (post + edits)",
  async run(streaming) {
    const fake = await DiscordFake.start();
    const gateway = discordGateway({
      name: "discord",
      botTokenEnvVar: "DISCORD_TOKEN",
      env: { DISCORD_TOKEN: fake.token },
      apiBaseUrl: fake.apiBaseUrl,
    });
    const rig = await startSessionRig(gateway, { streaming });
    try {
      await eventually(() => fake.sessions.current !== undefined, "the bot connected", 10_000);
      for (let i = 0; i < REPLIES; i++) {
        const channelId = `80000000000000010${i}`;
        fake.sessions.userSays({ channelId, authorId: "700000000000000001", content: `hello ${i}` });
        await eventually(
          () => fake.rest.botMessages.some((m) => m.channelId === channelId && m.content === TEXT),
          "the reply",
          20_000,
        );
      }
      await rig.session.idle(5_000);
      const calls = fake.calls.filter((c) => /\/channels\/\d+\/messages(\/\d+)?$/.test(c.path)).length;
      return { calls, limited: fake.rest.rateLimited.length };
    } finally {
      await rig.stop();
      await fake.close();
    }
  },
};

const telegram: Platform = {
  name: "Telegram private chat (drafts + message)",
  async run(streaming) {
    const fake = await TelegramFake.start();
    const gateway = telegramGateway({
      name: "telegram",
      botTokenEnvVar: "TG_TOKEN",
      env: { TG_TOKEN: fake.token },
      apiBaseUrl: fake.url,
      pollTimeoutSeconds: 1,
    });
    const rig = await startSessionRig(gateway, { streaming });
    try {
      for (let i = 0; i < REPLIES; i++) {
        const chatId = 9_100 + i;
        fake.chat.userSends({ chatId, text: `hello ${i}`, from: { id: chatId } });
        await eventually(
          () => fake.chat.botMessages.some((m) => m.chatId === chatId && m.text === TEXT),
          "the reply",
          20_000,
        );
      }
      await rig.session.idle(5_000);
      const shows = new Set(["sendMessage", "editMessageText", "sendMessageDraft"]);
      const calls = fake.calls.filter((c) => shows.has(c.method)).length;
      return { calls, limited: fake.rateLimited.refusals.length };
    } finally {
      await rig.stop();
      await fake.close();
    }
  },
};

const slack: Platform = {
  name: "Slack channel thread (native stream)",
  async run(streaming) {
    const fake = await SlackFake.start({ echoOwnMessages: false });
    const gateway = slackGateway({
      name: "slack",
      botTokenEnvVar: "SLACK_BOT",
      appTokenEnvVar: "SLACK_APP",
      env: { SLACK_BOT: fake.botToken, SLACK_APP: fake.appToken },
      apiBaseUrl: fake.apiBaseUrl,
    });
    const rig = await startSessionRig(gateway, { streaming });
    try {
      await eventually(() => fake.openConnections.length === 1, "the socket connected", 10_000);
      for (let i = 0; i < REPLIES; i++) {
        const channel = `C000${i + 1}`;
        await fake.workspace.userSays({ channel, user: "U0001", text: `<@${fake.workspace.botUserId}> hi` })
          .acked;
        await eventually(
          () =>
            fake.workspace.botMessages.some((m) => m.channel === channel && m.text === TEXT && !m.streaming),
          "the reply",
          20_000,
        );
      }
      await rig.session.idle(5_000);
      const calls = fake.calls.filter((c) => /^chat\.(postMessage|update|\w+Stream)$/.test(c.method)).length;
      return { calls, limited: fake.rateLimited.refusals.length };
    } finally {
      await rig.stop();
      await fake.close();
    }
  },
};

const teams: Platform = {
  name: "Teams personal chat (streaming protocol)",
  async run(streaming) {
    const host = await hostWebhooks();
    const app = { id: "00000000-1111-2222-3333-666666666666", password: "bench-~pw~" };
    const fake = await FakeTeams.start({
      appId: app.id,
      appPassword: app.password,
      webhookUrl: host.urlOf("teams"),
    });
    const gateway = new TeamsGateway({
      appIdEnvVar: "BENCH_TEAMS_APP_ID",
      appPasswordEnvVar: "BENCH_TEAMS_APP_PASSWORD",
      env: { BENCH_TEAMS_APP_ID: app.id, BENCH_TEAMS_APP_PASSWORD: app.password },
      openIdMetadataUrl: fake.openIdMetadataUrl,
      loginBaseUrl: fake.loginBaseUrl,
      serviceUrl: fake.serviceUrl,
    });
    host.mount("teams", gateway.webhooks);
    const rig = await startSessionRig(gateway, { streaming });
    const from = { id: "29:1bench", name: "Bench", aadObjectId: "aad-bench" };
    try {
      for (let i = 0; i < REPLIES; i++) {
        const conversationId = `a:1bench${i}`;
        await fake.deliverMessage({ conversationId, from, text: `hello ${i}` });
        await eventually(
          () => fake.sent.some((s) => s.conversationId === conversationId && s.text === TEXT),
          "the reply",
          20_000,
        );
      }
      await rig.session.idle(5_000);
      const updates = fake.streams.reduce((n, s) => n + s.updates.length, 0);
      return { calls: updates + fake.sent.length, limited: fake.streamRefusals.length };
    } finally {
      await rig.stop();
      await fake.close();
      await host.close();
    }
  },
};

export async function benchStreamCalls(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const platform of [discord, telegram, slack, teams]) {
    const plain = await platform.run(false);
    const streamed = await platform.run(true);
    const per = (n: number) => n / REPLIES;
    rows.push({
      metric: `${platform.name}: calls per reply (20 tokens at ${TOKEN_DELAY_MS} ms, 1 s interval)`,
      value: fmt(per(streamed.calls), 1),
      baseline: `${fmt(per(plain.calls), 1)} (streaming: false)`,
      ratio: `${fmt(streamed.calls / plain.calls, 1)}x`,
      target: `<= 1 per second of reply + 2; refused: ${streamed.limited}`,
    });
  }
  return rows;
}
