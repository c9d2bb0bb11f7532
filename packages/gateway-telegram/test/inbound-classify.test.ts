// What classifyUpdate (inbound.ts) makes of a Bot API update, without the poll: every documented
// message and callback_query payload of testkit/fixtures/telegram (the rows fixtures.test.ts sends
// through the fake's getUpdates), then the edges of the group rules, the entities and the record.
// Shapes: https://core.telegram.org/bots/api#update, #message, #messageentity, #callbackquery.
import { encodeDecision } from "@agentsvc/adapter-kit";
import { loadFixtures } from "@agentsvc/testkit/session";
import { describe, expect, it } from "vitest";
import { type BotIdentity, classifyUpdate, filesOf, type TgMessage, type TgUpdate } from "../src/inbound.js";

interface Fixture {
  payload: TgUpdate;
  expect: { outcome: string; text?: string; author?: string; thread?: string; reason?: string; by?: string };
}

/** The bot of the Telegram fake (getMe), which the fixtures were written for. */
const BOT: BotIdentity = { id: 999, username: "agentsvc_bot" };
const ROWS = loadFixtures<Fixture>("telegram").filter(
  (fx) => fx.payload.message !== undefined || fx.payload.callback_query !== undefined,
);

describe("documented updates", () => {
  it("are classified as the fixture table says (every message and button row)", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
    for (const fx of ROWS) {
      const got = classifyUpdate(fx.payload, BOT);
      const e = fx.expect;
      if (e.outcome === "delivered") {
        expect("message" in got && got.message, fx.file).toMatchObject({
          text: e.text,
          author: { id: e.author },
          thread: e.thread,
        });
      } else if (e.outcome === "decided") {
        expect("press" in got && got.press.by, fx.file).toBe(e.by);
      } else {
        expect("ignore" in got && got.ignore, fx.file).toContain(e.reason);
      }
    }
  });
});

let nextId = 1;
const msg = (over: Partial<TgMessage> = {}): TgUpdate => ({
  update_id: nextId,
  message: {
    message_id: nextId++,
    from: { id: 5001, is_bot: false, first_name: "Ada", last_name: "Lovelace", username: "ada" },
    chat: { id: 5001, type: "private" },
    text: "hello",
    ...over,
  },
});
const inGroup = (text: string, entities: TgMessage["entities"], over: Partial<TgMessage> = {}) =>
  msg({ chat: { id: -1001, type: "supergroup" }, text, entities, ...over });
const textOf = (u: TgUpdate) => {
  const got = classifyUpdate(u, BOT);
  return "message" in got ? got.message.text : `(ignored: ${"ignore" in got ? got.ignore : "press"})`;
};

describe("a message", () => {
  it("is delivered with a per-chat dedup key, the chat as a direct or group chat, and the meta a reply needs", () => {
    const got = classifyUpdate(msg({ message_id: 42 }), BOT);
    expect("message" in got && got.message).toEqual({
      dedupKey: "5001:42",
      thread: "5001",
      text: "hello",
      author: { id: "5001", displayName: "Ada Lovelace", isBot: false },
      chat: { type: "direct", id: "5001" },
      meta: { chatId: 5001, messageId: 42, chatType: "private" },
    });
    const group = classifyUpdate(
      inGroup("@agentsvc_bot hi", [{ type: "mention", offset: 0, length: 13 }]),
      BOT,
    );
    expect("message" in group && group.message.chat).toEqual({ type: "group", id: "-1001" });
    expect("files" in group).toBe(false);
  });

  it("names its author by first and last name, else the username, else not at all", () => {
    const name = (from: TgMessage["from"]) => {
      const got = classifyUpdate(msg({ from }), BOT);
      return "message" in got ? got.message.author : undefined;
    };
    expect(name({ id: 7, is_bot: false, first_name: "Ada" })).toEqual({
      id: "7",
      displayName: "Ada",
      isBot: false,
    });
    expect(name({ id: 7, is_bot: false, first_name: "", username: "ada" })).toEqual({
      id: "7",
      displayName: "ada",
      isBot: false,
    });
    expect(name({ id: 7, is_bot: false, first_name: "" })).toEqual({ id: "7", isBot: false });
  });

  it("sent on behalf of a chat is that chat's, named by its title when it has one", () => {
    const got = classifyUpdate(
      inGroup("@agentsvc_bot hi", [{ type: "mention", offset: 0, length: 13 }], {
        from: { id: 1087968824, is_bot: true, first_name: "Group", username: "GroupAnonymousBot" },
        sender_chat: { id: -1001, type: "supergroup" },
      }),
      BOT,
    );
    expect("message" in got && got.message.author).toEqual({ id: "chat:-1001" });
    const titled = classifyUpdate(
      inGroup("@agentsvc_bot hi", [{ type: "mention", offset: 0, length: 13 }], {
        sender_chat: { id: -1001, type: "supergroup", title: "Ops" },
      }),
      BOT,
    );
    expect("message" in titled && titled.message.author).toEqual({ id: "chat:-1001", displayName: "Ops" });
  });

  it("without a sender, from a placeholder user without sender_chat, or in a channel is ignored", () => {
    const noFrom = msg();
    delete noFrom.message?.from;
    expect(classifyUpdate(noFrom, BOT)).toEqual({ ignore: "no sender" });
    expect(textOf(msg({ from: { id: 777000, is_bot: false, first_name: "Telegram" } }))).toContain(
      "placeholder",
    );
    expect(textOf(msg({ chat: { id: -100777, type: "channel" } }))).toContain("chat type channel");
  });

  it("is delivered without the spaces around it", () => {
    expect(textOf(msg({ text: "  hello there \t" }))).toBe("hello there");
  });

  it("with neither text nor a file, or only the bot's mention, is ignored", () => {
    expect(textOf(msg({ text: "   " }))).toContain("no text and no file");
    expect(textOf(inGroup("@agentsvc_bot", [{ type: "mention", offset: 0, length: 13 }]))).toContain(
      "only a mention",
    );
  });

  it("of another kind (an edit) is not answered", () => {
    expect(classifyUpdate({ update_id: 9, edited_message: {} }, BOT)).toEqual({
      ignore: "edited_message updates are not handled",
    });
    expect(classifyUpdate({ update_id: 9 }, BOT)).toEqual({ ignore: "unknown updates are not handled" });
  });
});

describe("in a group, what addresses the bot (entities Telegram marked, never guessed)", () => {
  it("a mention of its username, in any case, or a text_mention of its user; the mention and the spaces before it go", () => {
    expect(textOf(inGroup("hey @AgentSvc_Bot  ping", [{ type: "mention", offset: 4, length: 13 }]))).toBe(
      "hey  ping",
    );
    expect(textOf(inGroup("hey @agentsvc_bot", [{ type: "mention", offset: 4, length: 13 }]))).toBe("hey");
    expect(
      textOf(
        inGroup("Agent do it", [
          {
            type: "text_mention",
            offset: 0,
            length: 5,
            user: { id: 999, is_bot: true, first_name: "Agent" },
          },
        ]),
      ),
    ).toBe("do it");
    // A text_mention of someone else, or an @name the entities do not mark, addresses nobody.
    expect(
      textOf(
        inGroup("Bob do it", [
          { type: "text_mention", offset: 0, length: 3, user: { id: 5, is_bot: false, first_name: "Bob" } },
        ]),
      ),
    ).toContain("not addressed");
    expect(textOf(inGroup("@agentsvc_bot hi", []))).toContain("not addressed");
    expect(textOf(inGroup("@someone_else hi", [{ type: "mention", offset: 0, length: 13 }]))).toContain(
      "not addressed",
    );
  });

  it("every mention of the bot goes, whatever order Telegram lists the entities in, and the text around it keeps its spacing", async () => {
    const text = "see this   @agentsvc_bot, and @agentsvc_bot  now";
    const entities = [
      { type: "mention", offset: 11, length: 13 },
      { type: "mention", offset: 30, length: 13 },
    ];
    expect(textOf(inGroup(text, entities))).toBe("see this, and  now");
    expect(textOf(inGroup(text, [...entities].reverse()))).toBe("see this, and  now");
  });

  it("a reply to a message without a sender (a channel's post) does not address the bot, and breaks nothing", () => {
    expect(
      textOf(
        inGroup("and then?", [], {
          reply_to_message: { message_id: 1, chat: { id: -1001, type: "supergroup" } },
        }),
      ),
    ).toContain("not addressed");
  });

  it("a command at the start, for this bot or for none; one for another bot, or not at the start, is not", () => {
    expect(textOf(inGroup("/sum@AgentSvc_Bot now", [{ type: "bot_command", offset: 0, length: 17 }]))).toBe(
      "/sum now",
    );
    expect(textOf(inGroup("/sum now", [{ type: "bot_command", offset: 0, length: 4 }]))).toBe("/sum now");
    expect(textOf(inGroup("/sum@other_bot now", [{ type: "bot_command", offset: 0, length: 14 }]))).toBe(
      "(ignored: command for another bot)",
    );
    expect(textOf(inGroup("see /sum", [{ type: "bot_command", offset: 4, length: 4 }]))).toContain(
      "not addressed",
    );
  });

  it("a reply to one of its messages; a caption's entities count for a photo", () => {
    expect(
      textOf(
        inGroup("and then?", [], {
          reply_to_message: {
            message_id: 1,
            chat: { id: -1001, type: "supergroup" },
            from: { id: 999, is_bot: true, first_name: "Agent" },
          },
        }),
      ),
    ).toBe("and then?");
    const photo = msg({
      chat: { id: -1001, type: "group" },
      text: undefined,
      caption: "@agentsvc_bot what is it",
      caption_entities: [{ type: "mention", offset: 0, length: 13 }],
      entities: [{ type: "mention", offset: 0, length: 99 }],
      photo: [{ file_id: "s", file_unique_id: "us" }],
    });
    delete photo.message?.text;
    expect(textOf(photo)).toBe("what is it");
  });
});

describe("the files a message carries", () => {
  it("the largest photo size, documents with name and size, voice, audio, video and video notes; a file without ids is skipped", () => {
    const m = msg({
      photo: [
        { file_id: "small", file_unique_id: "u-small", file_size: 10 },
        { file_id: "large", file_unique_id: "u-large", file_size: 99 },
      ],
      document: { file_id: "doc", file_unique_id: "u-doc", file_name: "a.pdf", file_size: 5 },
      voice: { file_id: "v", file_unique_id: "u-v" },
      audio: { file_id: "a", file_unique_id: "u-a" },
      video: { file_id: "vid", file_unique_id: "u-vid" },
      video_note: { file_id: "vn", file_unique_id: "u-vn" },
      sticker: { file_id: "st", file_unique_id: "u-st" },
    }).message as TgMessage;
    expect(filesOf(m)).toStrictEqual([
      { fileId: "large", uniqueId: "u-large", kind: "image", size: 99 },
      { fileId: "doc", uniqueId: "u-doc", kind: "document", name: "a.pdf", size: 5 },
      { fileId: "v", uniqueId: "u-v", kind: "audio" },
      { fileId: "a", uniqueId: "u-a", kind: "audio" },
      { fileId: "vid", uniqueId: "u-vid", kind: "video" },
      { fileId: "vn", uniqueId: "u-vn", kind: "video" },
    ]);
    expect(
      filesOf({
        ...m,
        photo: undefined,
        document: { file_id: "x" },
        voice: { file_unique_id: "y" },
        audio: undefined,
        video: undefined,
        video_note: undefined,
      }),
    ).toEqual([]);
    const got = classifyUpdate(
      msg({ text: undefined, document: { file_id: "d", file_unique_id: "u" } }),
      BOT,
    );
    expect("message" in got && got.message.text).toBe("");
    expect("files" in got && got.files).toEqual([{ fileId: "d", uniqueId: "u", kind: "document" }]);
  });
});

describe("a button press", () => {
  const press = (from: { id: number; is_bot: boolean }, data?: string): TgUpdate => ({
    update_id: 1,
    callback_query: { id: "q1", from: { ...from, first_name: "X" }, ...(data !== undefined ? { data } : {}) },
  });

  it("decides as its presser; a bot or placeholder presser never decides, and data that is no decision is answered as closed", () => {
    const data = encodeDecision("req-1", "approve");
    expect(classifyUpdate(press({ id: 5001, is_bot: false }, data), BOT)).toEqual({
      press: { queryId: "q1", requestId: "req-1", decision: "approve", by: "5001" },
    });
    for (const from of [
      { id: 5002, is_bot: true },
      { id: 1087968824, is_bot: false },
    ])
      expect(classifyUpdate(press(from, data), BOT)).toMatchObject({
        answer: { queryId: "q1", text: "This button can only be pressed as yourself." },
      });
    expect(classifyUpdate(press({ id: 5001, is_bot: false }), BOT)).toEqual({
      ignore: "button data is not a decision",
      answer: { queryId: "q1", text: "This request is already closed." },
    });
  });
});
