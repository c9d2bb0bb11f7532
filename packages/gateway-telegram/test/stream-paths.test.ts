// Which way a streamed reply goes, called as the session calls the gateway, against the Telegram fake
// over HTTP: a private chat gets a draft (https://core.telegram.org/bots/api#sendmessagedraft), a
// group a message that is edited (https://core.telegram.org/bots/api#editmessagetext); a stream
// resumed after a restart keeps the ids it had; a draft Telegram refuses falls back to the group way;
// the final text replaces the preview, and only a preview that is gone is sent anew.
import type { ReplyStream, SendOptions, StreamOptions } from "@agentsvc/adapter-kit";
import { eventually } from "@agentsvc/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isPrivate } from "../src/stream.js";
import { startRig, type TelegramRig } from "./rig.js";

const PRIVATE = 101;
const GROUP = -1001234567890;
const options: SendOptions = { idempotencyKey: "piece-1", attempt: 1 };

let rig: TelegramRig;

beforeEach(async () => {
  rig = await startRig({ groupEditGapMs: 0, backoff: { baseMs: 20, maxMs: 200 } });
});

afterEach(() => rig.stop());

/** The gateway's stream for `thread`, as the session opens it. */
function open(thread: string, streamOptions: StreamOptions = {}): ReplyStream {
  const stream = rig.gateway.stream?.(thread, streamOptions);
  if (!stream) throw new Error("the telegram gateway does not stream");
  return stream;
}

const inChat = (chatId: number) => rig.fake.chat.botMessages.filter((m) => m.chatId === chatId);

describe("a private chat or a group", () => {
  it("is told by the chat type Telegram named when the session has it, else by the id's sign", () => {
    expect(isPrivate(String(PRIVATE))).toBe(true);
    expect(isPrivate(String(GROUP))).toBe(false);
    expect(isPrivate(`${GROUP}:7`)).toBe(false);
    expect(isPrivate(String(PRIVATE), { chatType: "private" })).toBe(true);
    expect(isPrivate(String(GROUP), { chatType: "supergroup" })).toBe(false);
    // The type Telegram sent wins over any guess from the id.
    expect(isPrivate(String(PRIVATE), { chatType: "group" })).toBe(false);
    expect(isPrivate(String(GROUP), { chatType: "private" })).toBe(true);
    // Other meta (the message being answered) does not decide it.
    expect(isPrivate(String(PRIVATE), { messageId: 3 })).toBe(true);
  });

  it("a private chat without meta streams into one draft, handing its id over once, and the reply follows as one message without an edit", async () => {
    const stream = open(String(PRIVATE), {});
    const first = await stream.update("Hello");
    const second = await stream.update("Hello there");
    expect(first?.draftId).toBeTypeOf("number");
    expect(first?.draftId).toBeGreaterThan(0);
    expect(second).toBeUndefined();
    expect(rig.fake.chat.drafts.map((d) => [d.draftId, d.text])).toEqual([
      [first?.draftId, "Hello"],
      [first?.draftId, "Hello there"],
    ]);
    expect(rig.calls("sendMessage")).toEqual([]);
    const result = await rig.gateway.finishDraft(
      String(PRIVATE),
      first ?? {},
      "Hello there, all done.",
      options,
    );
    expect(inChat(PRIVATE).map((m) => m.text)).toEqual(["Hello there, all done."]);
    expect(result.messageId).toBe(String(inChat(PRIVATE)[0]?.messageId));
    expect(rig.calls("editMessageText")).toEqual([]);
  });

  it("a group's preview is sent as a reply to the user's message, edited as it grows (also without a signal), and the final text edits it in place", async () => {
    const stream = open(String(GROUP), { meta: { chatType: "supergroup", messageId: 17 } });
    const ids = await stream.update("Hello");
    expect(await stream.update("Hello there")).toBeUndefined();
    expect(rig.calls("sendMessageDraft")).toEqual([]);
    const [preview] = inChat(GROUP);
    expect(ids).toEqual({ messageId: String(preview?.messageId) });
    expect(rig.calls("sendMessage")[0]?.params.reply_parameters).toEqual({
      message_id: 17,
      allow_sending_without_reply: true,
    });
    const result = await rig.gateway.finishDraft(String(GROUP), ids ?? {}, "Hello there, all done.", options);
    expect(result).toEqual({ messageId: String(preview?.messageId) });
    expect(inChat(GROUP).map((m) => [m.text, m.edits])).toEqual([["Hello there, all done.", 2]]);
  });
});

describe("a stream resumed after a restart (the ids the session kept)", () => {
  it("a private chat's draft goes on under the same draft id, which is not handed over again", async () => {
    const stream = open(String(PRIVATE), { previous: { draftId: 4242 } });
    expect(await stream.update("Where were we")).toBeUndefined();
    expect(rig.fake.chat.drafts.map((d) => d.draftId)).toEqual([4242]);
  });

  it("a preview message already sent is edited, not sent again, in a private chat as in a group", async () => {
    const before = await rig.gateway.send(String(PRIVATE), "Half", options);
    const stream = open(String(PRIVATE), {
      previous: { messageId: String(before.messageId) },
      meta: { chatType: "private" },
    });
    expect(await stream.update("Half of it")).toBeUndefined();
    expect(rig.calls("sendMessageDraft")).toEqual([]);
    expect(inChat(PRIVATE).map((m) => m.text)).toEqual(["Half of it"]);

    const inGroup = await rig.gateway.send(String(GROUP), "Half", options);
    const groupStream = open(String(GROUP), { previous: { messageId: String(inGroup.messageId) } });
    expect(await groupStream.update("Half of it")).toBeUndefined();
    expect(inChat(GROUP).map((m) => m.text)).toEqual(["Half of it"]);
  });
});

describe("a private chat whose draft Telegram refuses", () => {
  it("refused for good (400): the preview becomes a message that is edited from then on", async () => {
    rig.fake.failNext("sendMessageDraft", {
      status: 400,
      description: "Bad Request: TEXTDRAFT_PEER_INVALID",
    });
    const stream = open(String(PRIVATE), { meta: { chatType: "private" } });
    const ids = await stream.update("Hello");
    expect(ids?.messageId).toBe(String(inChat(PRIVATE)[0]?.messageId));
    expect(await stream.update("Hello there")).toBeUndefined();
    expect(rig.calls("sendMessageDraft")).toHaveLength(1);
    expect(inChat(PRIVATE).map((m) => [m.text, m.edits])).toEqual([["Hello there", 1]]);
  });

  it("failing for now (500): that update fails, and the next one is a draft again", async () => {
    rig.fake.failNext("sendMessageDraft", { status: 500 });
    const stream = open(String(PRIVATE), { meta: { chatType: "private" } });
    await expect(stream.update("Hello")).rejects.toThrow();
    const ids = await stream.update("Hello there");
    expect(ids?.draftId).toBeTypeOf("number");
    expect(rig.fake.chat.drafts.map((d) => d.text)).toEqual(["Hello there"]);
    expect(rig.calls("sendMessage")).toEqual([]);
  });
});

describe("the final text of a group's preview", () => {
  it("an edit failing for a reason other than a deleted preview fails the piece (the outbox retries): no second message", async () => {
    const stream = open(String(GROUP), {});
    const ids = await stream.update("Hello");
    rig.fake.failNext("editMessageText", { status: 500 });
    await expect(
      rig.gateway.finishDraft(String(GROUP), ids ?? {}, "Hello, all done.", options),
    ).rejects.toThrow();
    expect(inChat(GROUP).map((m) => m.text)).toEqual(["Hello"]);
    expect(rig.calls("sendMessage")).toHaveLength(1);
  });

  it("a preview deleted meanwhile: the final text goes out as a new message", async () => {
    const stream = open(String(GROUP), {});
    const ids = await stream.update("Hello");
    expect(rig.fake.chat.deleteBotMessage(GROUP, Number(ids?.messageId))).toBe(true);
    const result = await rig.gateway.finishDraft(String(GROUP), ids ?? {}, "Hello, all done.", options);
    expect(inChat(GROUP).map((m) => m.text)).toEqual(["Hello, all done."]);
    expect(result.messageId).toBe(String(inChat(GROUP)[0]?.messageId));
  });
});

describe("a preview update the session gives up on", () => {
  it("rejects with the session's own reason once its signal aborts the call, not as a failed send", async () => {
    rig.fake.failNext("sendMessage", { hang: true });
    const gaveUp = new AbortController();
    const update = open(String(GROUP)).update("Hello", gaveUp.signal);
    await eventually(() => rig.calls("sendMessage").length === 1, "the send on its way");
    const reason = new Error("the session moved on");
    gaveUp.abort(reason);
    await expect(update).rejects.toBe(reason);
  });
});
