// Updates the gateway takes no turn for (https://core.telegram.org/bots/api#update): each is logged at
// debug with its update_id and the reason, confirmed like any other, and a button press among them is
// still answered (https://core.telegram.org/bots/api#answercallbackquery: "the answer will be displayed
// to the user as a notification ... otherwise, the client shows a progress bar until the answer").
import { eventually, TelegramFake, within } from "@agentsvc/testkit";
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
});

afterEach(async () => {
  await gateway.stop();
  rec.stop();
  await fake.close();
});

it("a group message not addressed to the bot is logged at debug with its update id and reason, and confirmed", async () => {
  const updateId = fake.chat.userSends({
    chatId: -1001234567890,
    text: "lunch, anyone?",
    from: { id: 5001 },
  });
  await within(fake.confirmed(updateId), 5_000, "the update confirmed");
  expect(rec.delivered).toEqual([]);
  expect(rec.logs().filter((l) => l.msg === "update ignored")).toEqual([
    expect.objectContaining({ level: 20, updateId, reason: "group message not addressed to the bot" }),
  ]);
});

it("a press on a button that is not a decision (an outcome already shown) is answered, and decides nothing", async () => {
  await gateway.send("101", "Done", {
    idempotencyKey: "k",
    attempt: 1,
  });
  const [message] = fake.chat.botMessages;
  // An outcome button as onDecided leaves it (callback_data "x:<requestId>").
  await fake.chat.call(
    "editMessageReplyMarkup",
    {
      chat_id: 101,
      message_id: message?.messageId,
      reply_markup: { inline_keyboard: [[{ text: "✅ Approved", callback_data: "x:req_1" }]] },
    },
    fake.bot,
  );
  const { callbackQueryId } = fake.chat.press({
    chatId: 101,
    messageId: message?.messageId as number,
    data: "x:req_1",
    from: { id: 5001 },
  });
  await eventually(() => fake.chat.callbackAnswers.get(callbackQueryId) !== undefined, "the answer");
  expect(fake.chat.callbackAnswers.get(callbackQueryId)).toEqual({ text: "This request is already closed." });
  expect(rec.decided).toEqual([]);
});
