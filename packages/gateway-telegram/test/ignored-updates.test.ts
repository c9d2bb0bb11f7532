// Updates the gateway takes no turn for (https://core.telegram.org/bots/api#update): each is logged at
// debug with its update_id and the reason, confirmed like any other, and a button press among them is
// still answered (https://core.telegram.org/bots/api#answercallbackquery: "the answer will be displayed
// to the user as a notification ... otherwise, the client shows a progress bar until the answer").
import { eventually, within } from "@agentsvc/testkit";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;

beforeEach(async () => {
  rig = await startRig();
});

afterEach(() => rig.stop());

it("a group message not addressed to the bot is logged at debug with its update id and reason, and confirmed", async () => {
  const updateId = rig.fake.chat.userSends({
    chatId: -1001234567890,
    text: "lunch, anyone?",
    from: { id: 5001 },
  });
  await within(rig.fake.confirmed(updateId), 5_000, "the update confirmed");
  expect(rig.rec.delivered).toEqual([]);
  expect(rig.rec.logs().filter((l) => l.msg === "update ignored")).toEqual([
    expect.objectContaining({ level: 20, updateId, reason: "group message not addressed to the bot" }),
  ]);
});

it("a press on a button that is not a decision (an outcome already shown) is answered, and decides nothing", async () => {
  await rig.gateway.send("101", "Done", {
    idempotencyKey: "k",
    attempt: 1,
  });
  const [message] = rig.fake.chat.botMessages;
  // An outcome button as onDecided leaves it (callback_data "x:<requestId>").
  await rig.fake.chat.call(
    "editMessageReplyMarkup",
    {
      chat_id: 101,
      message_id: message?.messageId,
      reply_markup: { inline_keyboard: [[{ text: "✅ Approved", callback_data: "x:req_1" }]] },
    },
    rig.fake.bot,
  );
  const { callbackQueryId } = rig.fake.chat.press({
    chatId: 101,
    messageId: message?.messageId as number,
    data: "x:req_1",
    from: { id: 5001 },
  });
  await eventually(() => rig.fake.chat.callbackAnswers.get(callbackQueryId) !== undefined, "the answer");
  expect(rig.fake.chat.callbackAnswers.get(callbackQueryId)).toEqual({
    text: "This request is already closed.",
  });
  expect(rig.rec.decided).toEqual([]);
});
