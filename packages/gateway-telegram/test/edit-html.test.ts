// An edit goes out as Telegram HTML (https://core.telegram.org/bots/api#editmessagetext: parse_mode,
// https://core.telegram.org/bots/api#html-style), so the message shows the formatting, not the tags.
import { afterEach, beforeEach, expect, it } from "vitest";
import { startRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;

beforeEach(async () => {
  rig = await startRig();
});

afterEach(() => rig.stop());

it("an edit's HTML is shown as formatting, not as tags", async () => {
  const sent = await rig.gateway.send("101", "Working", { idempotencyKey: "k", attempt: 1 });
  await rig.gateway.edit("101", sent.messageId as string, "<b>Final</b> answer");
  expect(rig.fake.chat.botMessages.map((m) => m.text)).toEqual(["Final answer"]);
  expect(rig.calls("editMessageText").map((c) => c.params.parse_mode)).toEqual(["HTML"]);
});
