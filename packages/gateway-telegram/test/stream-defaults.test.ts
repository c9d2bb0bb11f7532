// A streamed reply with the gateway's defaults, against the Telegram fake over HTTP: a group's preview
// is edited no sooner than 3 s after the previous edit (Telegram takes about 20 messages a minute
// into one group, https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this),
// and a private chat's draft (https://core.telegram.org/bots/api#sendmessagedraft) is sent as HTML
// into the forum topic it answers (message_thread_id).
import { afterEach, beforeEach, expect, it } from "vitest";
import { startRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;

beforeEach(async () => {
  rig = await startRig();
});

afterEach(() => rig.stop());

it("edits a group's streamed preview no sooner than 3 s after the message before it, by default", async () => {
  const stream = rig.gateway.stream?.("-1001234567890", { meta: { chatType: "supergroup" } });
  await stream?.update("Hello");
  await stream?.update("Hello there");
  const [sent, edited] = rig.fake.calls.filter(
    (c) => c.method === "sendMessage" || c.method === "editMessageText",
  );
  expect(edited?.method).toBe("editMessageText");
  // A lower bound only: a slow machine can lengthen the gap, never shorten it.
  expect((edited?.at as number) - (sent?.at as number)).toBeGreaterThanOrEqual(2_900);
});

it("sends a private chat's draft as HTML into the topic it answers", async () => {
  const stream = rig.gateway.stream?.("101:5", { meta: { chatType: "private" } });
  await stream?.update("<b>Hello</b> &lt;there&gt;");
  const [draft] = rig.calls("sendMessageDraft");
  expect(draft?.params).toMatchObject({ chat_id: "101", message_thread_id: 5, parse_mode: "HTML" });
  expect(rig.fake.chat.drafts.map((d) => ({ text: d.text, threadId: d.threadId }))).toEqual([
    { text: "Hello <there>", threadId: 5 },
  ]);
});
