// A streamed reply with the gateway's defaults, against the Telegram fake over HTTP: a group's preview
// is edited no sooner than 3 s after the previous edit (Telegram takes about 20 messages a minute
// into one group, https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this),
// and a private chat's draft (https://core.telegram.org/bots/api#sendmessagedraft) is sent as HTML
// into the forum topic it answers (message_thread_id).
import { eventually, TelegramFake } from "@agentsvc/testkit";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createGateway, type TelegramGateway } from "../src/index.js";
import { type RecordingContext, recordingContext } from "./recording-context.js";

let fake: TelegramFake;
let gateway: TelegramGateway;
let rec: RecordingContext;

beforeEach(async () => {
  fake = await TelegramFake.start();
  rec = recordingContext({ TELEGRAM_BOT_TOKEN: fake.token });
  gateway = createGateway({
    name: "telegram",
    botTokenEnvVar: "TELEGRAM_BOT_TOKEN",
    apiBaseUrl: fake.url,
    pollTimeoutSeconds: 1,
  }) as TelegramGateway;
  await gateway.start(rec.context);
  await eventually(() => fake.calls.some((c) => c.method === "getUpdates"), "the first poll");
});

afterEach(async () => {
  await gateway.stop();
  rec.stop();
  await fake.close();
});

it("edits a group's streamed preview no sooner than 3 s after the message before it, by default", async () => {
  const stream = gateway.stream?.("-1001234567890", { meta: { chatType: "supergroup" } });
  await stream?.update("Hello");
  await stream?.update("Hello there");
  const [sent, edited] = fake.calls.filter(
    (c) => c.method === "sendMessage" || c.method === "editMessageText",
  );
  expect(edited?.method).toBe("editMessageText");
  // A lower bound only: a slow machine can lengthen the gap, never shorten it.
  expect((edited?.at as number) - (sent?.at as number)).toBeGreaterThanOrEqual(2_900);
});

it("sends a private chat's draft as HTML into the topic it answers", async () => {
  const stream = gateway.stream?.("101:5", { meta: { chatType: "private" } });
  await stream?.update("<b>Hello</b> &lt;there&gt;");
  const [draft] = fake.calls.filter((c) => c.method === "sendMessageDraft");
  expect(draft?.params).toMatchObject({ chat_id: "101", message_thread_id: 5, parse_mode: "HTML" });
  expect(fake.chat.drafts.map((d) => ({ text: d.text, threadId: d.threadId }))).toEqual([
    { text: "Hello <there>", threadId: 5 },
  ]);
});
