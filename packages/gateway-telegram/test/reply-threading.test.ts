// Where a reply lands (https://core.telegram.org/bots/api#sendmessage): in the forum topic it answers
// (message_thread_id), quoting the user's message when the session has its id (reply_parameters,
// https://core.telegram.org/bots/api#replyparameters, sent even if that message was deleted since:
// allow_sending_without_reply), and as a plain message when it has none.
import { afterEach, beforeEach, expect, it } from "vitest";
import { startRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;

beforeEach(async () => {
  rig = await startRig();
});

afterEach(() => rig.stop());

const sends = () => rig.calls("sendMessage").map((c) => c.params);

it("answers in the forum topic, quoting the user's message when the session has its id", async () => {
  await rig.gateway.send("-1001234567890:7", "in the topic", {
    idempotencyKey: "a",
    attempt: 1,
    meta: { messageId: 42 },
  });
  expect(sends()).toEqual([
    {
      chat_id: "-1001234567890",
      message_thread_id: 7,
      reply_parameters: { message_id: 42, allow_sending_without_reply: true },
      text: "in the topic",
      parse_mode: "HTML",
    },
  ]);
  expect(rig.fake.chat.botMessages[0]).toMatchObject({ threadId: 7, replyTo: 42 });
});

it("sends a plain message, quoting nothing, when the session has no message id (or not Telegram's number)", async () => {
  await rig.gateway.send("101", "no quote", { idempotencyKey: "a", attempt: 1 });
  await rig.gateway.send("101", "no quote either", {
    idempotencyKey: "b",
    attempt: 1,
    meta: { messageId: "42" },
  });
  expect(sends()).toEqual([
    { chat_id: "101", text: "no quote", parse_mode: "HTML" },
    { chat_id: "101", text: "no quote either", parse_mode: "HTML" },
  ]);
});
