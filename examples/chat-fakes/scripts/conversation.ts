// Starts the Telegram, Slack and Discord fakes, serves this project through the real agentsvc
// server with its three entries pointed at them, and plays one conversation per platform: a
// greeting, then a request that needs approval, approved with the platform's own button.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { PushGatewayEntry } from "@agentsvc/config-schema";
import { DiscordFake, eventually, SlackFake, TelegramFake } from "@agentsvc/testkit";
import { type ProjectServer, startProjectServer } from "@agentsvc/server/testing";

const projectDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export interface Demo {
  server: ProjectServer;
  telegram: TelegramFake;
  slack: SlackFake;
  discord: DiscordFake;
  close(): Promise<void>;
}

/**
 * A copy of this project in a temp folder (its node_modules linked), so its `data/` store is its
 * own: the server helper clears `<root>/data` on start and close, so it refuses a folder another
 * live demo serves (two test files run at once, or a test beside `pnpm dev:fakes`; before that
 * refusal they shared one SQLite file and deleted it under each other), and each copy runs.
 */
function privateProjectCopy(): string {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-chat-fakes-"));
  for (const part of ["package.json", "agents", "gateways"]) {
    cpSync(join(projectDir, part), join(root, part), { recursive: true });
  }
  symlinkSync(join(projectDir, "node_modules"), join(root, "node_modules"), "dir");
  return root;
}

/** `port`: where agentsvc listens on 127.0.0.1 (default any free port). */
export async function startDemo(options: { port?: number } = {}): Promise<Demo> {
  const root = privateProjectCopy();
  const telegram = await TelegramFake.start();
  const slack = await SlackFake.start();
  const discord = await DiscordFake.start({ heartbeatIntervalMs: 5_000 });
  const bases: Record<string, string> = {
    telegram: telegram.url,
    slack: slack.apiBaseUrl,
    discord: discord.apiBaseUrl,
  };
  const server = await startProjectServer(root, {
    env: {
      TELEGRAM_BOT_TOKEN: telegram.token,
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      DISCORD_BOT_TOKEN: discord.token,
    },
    patchGateway: (entry: PushGatewayEntry) =>
      ({ ...entry, apiBaseUrl: bases[entry.type] ?? "" }) as PushGatewayEntry,
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  return {
    server,
    telegram,
    slack,
    discord,
    close: async () => {
      await server.close();
      await Promise.all([telegram.close(), slack.close(), discord.close()]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

type Say = (line: string) => void;

async function telegramTalk(t: TelegramFake, say: Say): Promise<void> {
  const user = { id: 4242, first_name: "Ada" };
  const seen = () => t.chat.botMessages.length;
  let before = seen();
  say("[telegram] Ada: hello from Telegram");
  t.chat.userSends({ chatId: 4242, text: "hello from Telegram", from: user });
  await eventually(() => seen() > before, "the Telegram reply", 15_000);
  say(`[telegram] bot: ${t.chat.botMessages.at(-1)?.text}`);
  before = seen();
  say("[telegram] Ada: please send a note saying the build is green");
  t.chat.userSends({ chatId: 4242, text: "please send a note saying the build is green", from: user });
  await eventually(() => t.chat.botMessages.some((m) => m.replyMarkup), "the Telegram approval card", 15_000);
  const card = t.chat.botMessages.find((m) => m.replyMarkup);
  const approve = card?.replyMarkup?.inline_keyboard.flat()[0];
  say(
    `[telegram] bot shows: ${card?.text.split("\n")[0]} [${card?.replyMarkup?.inline_keyboard
      .flat()
      .map((b) => b.text)
      .join("] [")}]`,
  );
  say(`[telegram] Ada presses ${approve?.text}`);
  before = seen();
  t.chat.press({
    chatId: 4242,
    messageId: card?.messageId as number,
    data: approve?.callback_data as string,
    from: user,
  });
  await eventually(() => seen() > before, "the Telegram tool result", 15_000);
  say(`[telegram] bot: ${t.chat.botMessages.at(-1)?.text}`);
}

async function slackTalk(s: SlackFake, say: Say): Promise<void> {
  const w = s.workspace;
  const seen = () => w.botMessages.length;
  await eventually(() => s.openConnections.length > 0, "the Slack Socket Mode connection", 15_000);
  let before = seen();
  say("[slack] U0GRACE: hello from Slack");
  await w.userSays({ channel: "D0GRACE", user: "U0GRACE", text: "hello from Slack" }).acked;
  await eventually(() => seen() > before, "the Slack reply", 15_000);
  say(`[slack] bot: ${w.botMessages.at(-1)?.text}`);
  say("[slack] U0GRACE: please send a note saying lunch is ready");
  await w.userSays({ channel: "D0GRACE", user: "U0GRACE", text: "please send a note saying lunch is ready" })
    .acked;
  await eventually(() => w.botMessages.some((m) => m.blocks), "the Slack approval card", 15_000);
  const card = w.botMessages.find((m) => m.blocks);
  const button = card?.blocks?.flatMap((b) => b.elements ?? [])[0] as { action_id: string; value: string };
  say("[slack] bot shows Block Kit buttons [Approve] [Reject]; U0GRACE presses Approve");
  before = seen();
  await w.press({ value: button.value, actionId: button.action_id, user: "U0GRACE" });
  await eventually(() => seen() > before, "the Slack tool result", 15_000);
  say(`[slack] bot: ${w.botMessages.at(-1)?.text}`);
}

async function discordTalk(d: DiscordFake, say: Say): Promise<void> {
  const rest = d.rest;
  const seen = () => rest.botMessages.length;
  await eventually(() => d.sessions.current !== undefined, "the Discord READY", 15_000);
  let before = seen();
  say("[discord] linus: hello from Discord");
  d.sessions.userSays({
    channelId: "810000000000000001",
    authorId: "710000000000000001",
    content: "hello from Discord",
  });
  await eventually(() => seen() > before, "the Discord reply", 15_000);
  say(`[discord] bot: ${rest.botMessages.at(-1)?.content}`);
  say("[discord] linus: please send a note saying the demo works");
  d.sessions.userSays({
    channelId: "810000000000000001",
    authorId: "710000000000000001",
    content: "please send a note saying the demo works",
  });
  await eventually(
    () => rest.botMessages.some((m) => m.components?.length),
    "the Discord approval card",
    15_000,
  );
  const card = rest.botMessages.find((m) => m.components?.length);
  const button = card?.components?.[0]?.components?.[0];
  say(`[discord] bot shows buttons; linus presses ${button?.label}`);
  before = seen();
  d.sessions.press({
    messageId: card?.id as string,
    customId: button?.custom_id as string,
    userId: "710000000000000001",
  });
  await eventually(() => seen() > before, "the Discord tool result", 15_000);
  say(`[discord] bot: ${rest.botMessages.at(-1)?.content}`);
}

/** Plays the three conversations one after another; returns the transcript. */
export async function playConversations(demo: Demo, say: Say = () => undefined): Promise<string[]> {
  const lines: string[] = [];
  const log: Say = (line) => {
    lines.push(line);
    say(line);
  };
  await telegramTalk(demo.telegram, log);
  await slackTalk(demo.slack, log);
  await discordTalk(demo.discord, log);
  return lines;
}
