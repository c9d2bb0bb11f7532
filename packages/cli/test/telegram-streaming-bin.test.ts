// A push entry's `streaming` keys through the built bin: Telegram streams a reply as drafts by
// default, no more often than `streamIntervalMs`, and `streaming: false` sends it once, whole, with
// no draft and no edit.
import { eventually, TelegramFake } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { linkPackages, tempDir, writeFiles } from "./helpers.js";

const WORDS = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
// The demo model writes its scripted text a token at a time, 25 ms apart (about 1.5 s in all: the
// default streamIntervalMs, 1 s, would show a second draft).
const AGENT = `export default { kind: "agent", name: "bot", model: { provider: "demo", tokenDelayMs: 25, script: [{ text: "${WORDS}" }] } };\n`;

let served: Served | undefined;
let fake: TelegramFake | undefined;
afterEach(async () => {
  await served?.stop();
  await fake?.close();
  served = undefined;
  fake = undefined;
});

async function replyWith(entryKeys: string): Promise<TelegramFake> {
  const telegram = await TelegramFake.start();
  fake = telegram;
  const dir = writeFiles(tempDir("agentsvc-streaming-"), {
    "agents/bot.mjs": AGENT,
    "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TELEGRAM_BOT_TOKEN\napiBaseUrl: ${telegram.url}\n${entryKeys}`,
  });
  linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
  served = await serveBin(["start", dir, "--port", "0"], { TELEGRAM_BOT_TOKEN: telegram.token });
  telegram.chat.userSends({ chatId: 5151, text: "tell me", from: { id: 5151 } });
  await eventually(() => telegram.chat.botMessages.some((m) => m.text === WORDS), "the whole reply", 30_000);
  return telegram;
}

describe("agentsvc start: a Telegram entry's streaming keys", () => {
  it("streams the reply as drafts by default, no more often than streamIntervalMs (60 s: the first draft only)", async () => {
    const telegram = await replyWith("streamIntervalMs: 60000\n");
    expect(telegram.chat.drafts.filter((d) => d.chatId === 5151)).toHaveLength(1);
  }, 60_000);

  it("streaming: false sends the reply once, whole: no draft, no edit", async () => {
    const telegram = await replyWith("streaming: false\n");
    expect(telegram.chat.drafts).toEqual([]);
    expect(telegram.chat.botMessages.map((m) => [m.text, m.edits])).toEqual([[WORDS, 0]]);
  }, 60_000);
});
