// Which Bot API refusals (https://core.telegram.org/bots/api#making-requests) the gateway gets past and
// which it reports: only 400 "can't parse entities" is tried once more as plain text, only 400
// "message is not modified" counts as an edit done; a user who blocked the bot (403) or a message
// Telegram no longer has fails after one call, in Telegram's words.
import { eventually } from "@agentsvc/testkit";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;
const opts = { idempotencyKey: "k", attempt: 1 };
const REFUSED = {
  status: 400 as const,
  description: 'Bad Request: can\'t parse entities: Unsupported start tag "br" at byte offset 12',
};

beforeEach(async () => {
  rig = await startRig();
});

afterEach(() => rig.stop());

/** The warnings logged with a message matching `msg`. */
const warnings = (msg: RegExp) => rig.rec.logs().filter((l) => l.level === 40 && msg.test(l.msg));
/** A refusal's warning carries Telegram's words, so the operator sees which markup it refused. */
const REFUSAL_LOGGED = expect.objectContaining({
  err: expect.objectContaining({ message: expect.stringMatching(/can't parse entities/) }),
});

it("a reply to a user who blocked the bot fails for good (403) after one sendMessage, not again as plain text", async () => {
  rig.fake.failNext("sendMessage", { status: 403, description: "Forbidden: bot was blocked by the user" });
  const failed = await rig.gateway.send("101", "<b>hi</b>", opts).catch((e: unknown) => e);
  expect(failed).toMatchObject({
    permanent: true,
    message: expect.stringMatching(/bot was blocked by the user/),
  });
  expect(rig.calls("sendMessage")).toHaveLength(1);
  expect(rig.fake.chat.botMessages).toEqual([]);
});

it("an edit of a message Telegram no longer has fails after one editMessageText", async () => {
  await expect(rig.gateway.edit("101", "424242", "final")).rejects.toThrow(/message to edit not found/);
  expect(rig.calls("editMessageText")).toHaveLength(1);
});

it("an edit to the text the message already shows is done (Telegram's 'message is not modified')", async () => {
  const sent = await rig.gateway.send("101", "<b>same</b>", opts);
  await expect(rig.gateway.edit("101", sent.messageId as string, "<b>same</b>")).resolves.toBeUndefined();
  expect(rig.fake.chat.botMessages[0]?.edits).toBe(0);
});

it("an edit refused as markup whose plain text the message already shows is done", async () => {
  const sent = await rig.gateway.send("101", "Final answer", opts);
  rig.fake.failNext("editMessageText", REFUSED);
  await expect(
    rig.gateway.edit("101", sent.messageId as string, "<b>Final</b> answer"),
  ).resolves.toBeUndefined();
  expect(rig.calls("editMessageText").map((c) => c.params.text)).toEqual([
    "<b>Final</b> answer",
    "Final answer",
  ]);
  expect(warnings(/HTML refused; editing the message to plain text/)).toEqual([REFUSAL_LOGGED]);
});

it("a send refused as markup is logged with Telegram's words before it goes out as plain text", async () => {
  rig.fake.failNext("sendMessage", REFUSED);
  await rig.gateway.send("101", "<b>Status</b>", opts);
  expect(rig.fake.chat.botMessages.map((m) => m.text)).toEqual(["Status"]);
  expect(warnings(/HTML refused; sending the piece as plain text/)).toEqual([REFUSAL_LOGGED]);
});

it("hands a text message to the session without an attachments list", async () => {
  rig.fake.chat.userSends({ chatId: 101, text: "just text", from: { id: 5001 } });
  await eventually(() => rig.rec.delivered.length === 1, "the message delivered");
  expect(rig.rec.delivered[0]).not.toHaveProperty("attachments");
});
