// Which Bot API refusals (https://core.telegram.org/bots/api#making-requests) the gateway gets past and
// which it reports: only 400 "can't parse entities" is tried once more as plain text, only 400
// "message is not modified" counts as an edit done; a user who blocked the bot (403) or a message
// Telegram no longer has fails after one call, in Telegram's words.
import { eventually, TelegramFake } from "@agentsvc/testkit";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createGateway, type TelegramGateway } from "../src/index.js";
import { type RecordingContext, recordingContext } from "./recording-context.js";

let fake: TelegramFake;
let gateway: TelegramGateway;
let rec: RecordingContext;
const opts = { idempotencyKey: "k", attempt: 1 };
const REFUSED = {
  status: 400 as const,
  description: 'Bad Request: can\'t parse entities: Unsupported start tag "br" at byte offset 12',
};

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
});

afterEach(async () => {
  await gateway.stop();
  rec.stop();
  await fake.close();
});

const calls = (method: string) => fake.calls.filter((c) => c.method === method);

it("a reply to a user who blocked the bot fails for good (403) after one sendMessage, not again as plain text", async () => {
  fake.failNext("sendMessage", { status: 403, description: "Forbidden: bot was blocked by the user" });
  const failed = await gateway.send("101", "<b>hi</b>", opts).catch((e: unknown) => e);
  expect(failed).toMatchObject({
    permanent: true,
    message: expect.stringMatching(/bot was blocked by the user/),
  });
  expect(calls("sendMessage")).toHaveLength(1);
  expect(fake.chat.botMessages).toEqual([]);
});

it("an edit of a message Telegram no longer has fails after one editMessageText", async () => {
  await expect(gateway.edit("101", "424242", "final")).rejects.toThrow(/message to edit not found/);
  expect(calls("editMessageText")).toHaveLength(1);
});

it("an edit to the text the message already shows is done (Telegram's 'message is not modified')", async () => {
  const sent = await gateway.send("101", "<b>same</b>", opts);
  await expect(gateway.edit("101", sent.messageId as string, "<b>same</b>")).resolves.toBeUndefined();
  expect(fake.chat.botMessages[0]?.edits).toBe(0);
});

it("an edit refused as markup whose plain text the message already shows is done", async () => {
  const sent = await gateway.send("101", "Final answer", opts);
  fake.failNext("editMessageText", REFUSED);
  await expect(gateway.edit("101", sent.messageId as string, "<b>Final</b> answer")).resolves.toBeUndefined();
  expect(calls("editMessageText").map((c) => c.params.text)).toEqual(["<b>Final</b> answer", "Final answer"]);
  expect(
    rec.logs().some((l) => l.level === 40 && /HTML refused; editing the message to plain text/.test(l.msg)),
  ).toBe(true);
});

it("a send refused as markup is logged as such before it goes out as plain text", async () => {
  fake.failNext("sendMessage", REFUSED);
  await gateway.send("101", "<b>Status</b>", opts);
  expect(fake.chat.botMessages.map((m) => m.text)).toEqual(["Status"]);
  expect(
    rec.logs().some((l) => l.level === 40 && /HTML refused; sending the piece as plain text/.test(l.msg)),
  ).toBe(true);
});

it("hands a text message to the session without an attachments list", async () => {
  fake.chat.userSends({ chatId: 101, text: "just text", from: { id: 5001 } });
  await eventually(() => rec.delivered.length === 1, "the message delivered");
  expect(rec.delivered[0]).not.toHaveProperty("attachments");
});
