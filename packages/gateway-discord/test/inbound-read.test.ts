// What readMessage (inbound.ts) makes of a MESSAGE_CREATE, without the socket: every documented
// message payload of testkit/fixtures/discord (the same rows fixtures.test.ts sends through the fake
// gateway connection), then the edges of the group rules and of the delivered record. Shapes:
// https://discord.com/developers/docs/resources/message#message-object and
// https://discord.com/developers/docs/events/gateway-events#message-create.
import { loadFixtures } from "@agentsvc/testkit/session";
import { describe, expect, it } from "vitest";
import { type Addressing, type DiscordMessage, readMessage } from "../src/inbound.js";
import { botRoleIn } from "../src/thread.js";

interface Fixture {
  before?: { t: string; d: Record<string, unknown> }[];
  payload: { t?: string; d?: DiscordMessage };
  expect: {
    outcome: string;
    intentHint?: boolean;
    text?: string;
    author?: string;
    authorName?: string;
    thread?: string;
    reason?: string;
  };
}

/** The ids the fixtures were written with. */
const BOT = "900000000000000001";
const ROWS = loadFixtures<Fixture>("discord")
  .map((fx) => ({ file: fx.file, fx }))
  .filter(
    ({ fx }) =>
      fx.payload.t === "MESSAGE_CREATE" &&
      (fx.expect.outcome === "delivered" || fx.expect.outcome === "ignored"),
  );

type Role = { id: string; tags?: { bot_id?: string } };

/** What the gateway would know from the frames before the row: the bot's role, the threads it posted in. */
function addressingOf(fx: Fixture, m: DiscordMessage): Addressing {
  let botRoleId: string | undefined;
  let answeredThread = false;
  for (const frame of fx.before ?? []) {
    if (frame.t === "GUILD_CREATE") botRoleId = botRoleIn(frame.d.roles as Role[], BOT) ?? botRoleId;
    if (frame.t === "GUILD_ROLE_CREATE" || frame.t === "GUILD_ROLE_UPDATE")
      botRoleId = botRoleIn([frame.d.role as Role], BOT) ?? botRoleId;
    const d = frame.d as unknown as DiscordMessage;
    if (frame.t === "MESSAGE_CREATE" && d.author?.id === BOT && d.channel_id === m.channel_id)
      answeredThread = true;
  }
  return { botUserId: BOT, ...(botRoleId ? { botRoleId } : {}), answeredThread };
}

describe("documented MESSAGE_CREATE payloads", () => {
  it("are read as the fixture table says (every row)", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(20);
    for (const { file, fx } of ROWS) {
      const m = fx.payload.d as DiscordMessage;
      const reading = readMessage(m, addressingOf(fx, m));
      if (fx.expect.outcome === "delivered") {
        expect(reading.kind, file).toBe("deliver");
        if (reading.kind !== "deliver") continue;
        expect(reading.inbound, file).toMatchObject({
          dedupKey: m.id,
          thread: fx.expect.thread,
          text: fx.expect.text,
          author: { id: fx.expect.author, displayName: fx.expect.authorName, isBot: false },
        });
      } else {
        expect(reading.kind, file).toBe(fx.expect.intentHint ? "empty" : "ignored");
        if (reading.kind === "deliver") continue;
        // The fixture names a part of the logged reason.
        expect(reading.reason, file).toContain(fx.expect.reason ?? "");
      }
    }
  });
});

const base = (over: Partial<DiscordMessage> = {}): DiscordMessage => ({
  id: "1200000000000000001",
  channel_id: "800000000000000001",
  guild_id: "600000000000000001",
  author: { id: "700000000000000001", username: "alice", global_name: "Alice" },
  content: `<@${BOT}> hello`,
  type: 0,
  mentions: [{ id: BOT, username: "agent", bot: true }],
  ...over,
});
const who: Addressing = { botUserId: BOT, answeredThread: false };
const textOf = (m: DiscordMessage, a: Addressing = who) => {
  const r = readMessage(m, a);
  return r.kind === "deliver" ? r.inbound.text : `(${r.kind}: ${r.reason})`;
};

describe("a guild message", () => {
  it("reaches the agent only when addressed: a mention of the bot, of its role, a reply to it, or a thread it answered in", () => {
    expect(readMessage(base(), who).kind).toBe("deliver");
    const plain = base({ content: "hello", mentions: [] });
    expect(readMessage(plain, who).kind).toBe("ignored");
    // A mention of someone else is not one of the bot.
    expect(readMessage({ ...plain, mentions: [{ id: "700000000000000002" }] }, who).kind).toBe("ignored");
    // A reply to a message whose author Discord did not include addresses nobody (and breaks nothing).
    expect(readMessage({ ...plain, referenced_message: { id: "1" } }, who).kind).toBe("ignored");
    expect(readMessage({ ...plain, mention_roles: ["555"] }, { ...who, botRoleId: "555" }).kind).toBe(
      "deliver",
    );
    expect(readMessage({ ...plain, mention_roles: ["556"] }, { ...who, botRoleId: "555" }).kind).toBe(
      "ignored",
    );
    // No role known for the bot: a message naming no role is not addressed by "role undefined".
    expect(readMessage({ ...plain, mention_roles: [] }, who).kind).toBe("ignored");
    expect(readMessage({ ...plain, referenced_message: { id: "1", author: { id: BOT } } }, who).kind).toBe(
      "deliver",
    );
    expect(
      readMessage({ ...plain, referenced_message: { id: "1", author: { id: "700000000000000002" } } }, who)
        .kind,
    ).toBe("ignored");
    // A reply whose original was deleted (null) is not addressed by it.
    expect(readMessage({ ...plain, referenced_message: null }, who).kind).toBe("ignored");
    const inThread = { ...plain, channel_type: 11 };
    expect(readMessage(inThread, { ...who, answeredThread: true }).kind).toBe("deliver");
    expect(readMessage(inThread, who).kind).toBe("ignored");
    // "Answered" means a thread: in an ordinary channel it never stands for a mention.
    expect(readMessage({ ...plain, channel_type: 0 }, { ...who, answeredThread: true }).kind).toBe("ignored");
  });

  it("before the bot knows who it is (no READY yet) is addressed to nobody", () => {
    const unknownBot: Addressing = { botUserId: undefined, answeredThread: true };
    expect(readMessage({ ...base(), channel_type: 11 }, unknownBot).kind).toBe("ignored");
  });

  it("loses the bot's mention (and one space after it), as <@id>, <@!id> or its role, and keeps everything else as typed", () => {
    expect(textOf(base({ content: `<@${BOT}> hello` }))).toBe("hello");
    expect(textOf(base({ content: `<@!${BOT}> hello` }))).toBe("hello");
    expect(textOf(base({ content: `ask <@${BOT}>  twice <@${BOT}>` }))).toBe("ask  twice");
    expect(textOf(base({ content: `<@${BOT}> see <@700000000000000002>` }))).toBe(
      "see <@700000000000000002>",
    );
    expect(textOf(base({ content: `<@&555> please` }), { ...who, botRoleId: "555" })).toBe("please");
    expect(textOf(base({ content: `<@&556> please` }), { ...who, botRoleId: "555" })).toBe("<@&556> please");
    expect(textOf(base({ content: `<@&555> please <@&555> now` }), { ...who, botRoleId: "555" })).toBe(
      "please now",
    );
    expect(textOf(base({ content: `<@${BOT}>\n    indented code` }))).toBe("indented code");
  });
});

describe("what is delivered", () => {
  it("a guild message is a group chat of its channel, with the guild, message and thread flag in meta", () => {
    const r = readMessage({ ...base(), channel_type: 11 }, { ...who, answeredThread: true });
    expect(r.kind === "deliver" && r.inbound).toEqual({
      dedupKey: "1200000000000000001",
      thread: "800000000000000001",
      text: "hello",
      author: { id: "700000000000000001", displayName: "Alice", isBot: false },
      chat: { type: "group", id: "800000000000000001" },
      meta: {
        channelId: "800000000000000001",
        messageId: "1200000000000000001",
        guildId: "600000000000000001",
        discordThread: true,
      },
    });
  });

  it("a DM is a direct chat without guild or thread flag; the display name falls back to the username, else none", () => {
    const dm = {
      ...base({ content: "hi", mentions: [] }),
      guild_id: undefined,
      channel_type: 1,
    } as DiscordMessage;
    delete dm.guild_id;
    const r = readMessage({ ...dm, author: { id: "7", username: "bob", global_name: null } }, who);
    expect(r.kind === "deliver" && r.inbound).toEqual({
      dedupKey: "1200000000000000001",
      thread: "800000000000000001",
      text: "hi",
      author: { id: "7", displayName: "bob", isBot: false },
      chat: { type: "direct", id: "800000000000000001" },
      meta: { channelId: "800000000000000001", messageId: "1200000000000000001" },
    });
    const nameless = readMessage({ ...dm, author: { id: "8" } }, who);
    expect(nameless.kind === "deliver" && nameless.inbound.author).toEqual({ id: "8", isBot: false });
  });

  it("a reply (type 19) is a user's message; other types are system notices", () => {
    expect(readMessage(base({ type: 19 }), who).kind).toBe("deliver");
    expect(readMessage(base({ type: 7 }), who)).toEqual({
      kind: "ignored",
      reason: "system message (type 7)",
    });
    // No type field: the default message.
    const untyped = base();
    delete untyped.type;
    expect(readMessage(untyped, who).kind).toBe("deliver");
  });

  it("no text: an embed, sticker or poll alone is ignored quietly; nothing at all is the missing-intent case", () => {
    const empty = base({ content: "" });
    expect(readMessage(empty, who).kind).toBe("empty");
    expect(readMessage({ ...empty, embeds: [{}] }, who)).toEqual({
      kind: "ignored",
      reason: "no text (embed or sticker only)",
    });
    expect(readMessage({ ...empty, sticker_items: [{}] }, who).kind).toBe("ignored");
    expect(readMessage({ ...empty, poll: {} }, who).kind).toBe("ignored");
    expect(readMessage({ ...empty, embeds: [], attachments: [], sticker_items: [] }, who).kind).toBe("empty");
    // Only the mention: nothing to say.
    expect(readMessage(base({ content: `<@${BOT}>  ` }), who).kind).toBe("empty");
  });

  it("takes only attachments that name an id and a url, each with its claimed kind, name and size", () => {
    const r = readMessage(
      base({
        content: `<@${BOT}> look`,
        attachments: [
          {
            id: "1",
            url: "https://cdn.discordapp.com/a/1/x.png",
            filename: "x.png",
            content_type: "image/png",
            size: 3,
          },
          { url: "https://cdn.discordapp.com/a/2/y.png" },
          { id: "3" },
          null,
        ],
      }),
      who,
    );
    expect(r.kind === "deliver" && r.files).toEqual([
      { id: "1", url: "https://cdn.discordapp.com/a/1/x.png", kind: "image", name: "x.png", size: 3 },
    ]);
    const none = readMessage(base({ attachments: [{ id: "3" }] }), who);
    expect(none.kind === "deliver" && "files" in none).toBe(false);
  });

  it("a forward quotes every line of the forwarded text under 'Forwarded message:'", () => {
    const fwd = base({
      content: "",
      message_reference: { type: 1, message_id: "5" },
      message_snapshots: [{ message: { content: "  line one\nline two  " } }],
    });
    expect(textOf(fwd)).toBe("Forwarded message:\n> line one\n> line two");
    // A reply (reference type 0) is not a forward.
    expect(textOf(base({ content: `<@${BOT}> hi`, message_reference: { type: 0, message_id: "5" } }))).toBe(
      "hi",
    );
    const withoutSnapshots = { ...fwd };
    delete withoutSnapshots.message_snapshots;
    expect(readMessage(withoutSnapshots, who).kind).toBe("ignored");
    expect(readMessage({ ...fwd, message_snapshots: [{}] }, who).kind).toBe("ignored");
    expect(readMessage({ ...fwd, message_snapshots: [] }, who)).toEqual({
      kind: "ignored",
      reason: "forwarded message without text",
    });
  });
});
