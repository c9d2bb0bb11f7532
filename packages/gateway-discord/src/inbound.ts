// MESSAGE_CREATE -> what the session takes, or the reason it is ignored (logged at debug).
// Shapes: https://discord.com/developers/docs/resources/message (message object, types,
// message_reference) and https://discord.com/developers/docs/events/gateway-events#message-create
// (guild_id, member, mentions, channel_type).
import { type AttachmentKind, claimedFile, type Inbound } from "@agentsvc/adapter-kit";

export interface DiscordUser {
  id: string;
  username?: string;
  global_name?: string | null;
  bot?: boolean;
}

export interface DiscordMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  /** Only in gateway dispatches (and not always): 1 DM, 0 guild text, 10/11/12 threads. */
  channel_type?: number;
  author: DiscordUser;
  content: string;
  /** 0 DEFAULT, 19 REPLY; every other type is a system notice (join, pin, boost, thread created, ...). */
  type?: number;
  webhook_id?: string;
  mentions?: DiscordUser[];
  mention_roles?: string[];
  attachments?: unknown[];
  embeds?: unknown[];
  sticker_items?: unknown[];
  poll?: unknown;
  /** `type` 0 DEFAULT (a reply), 1 FORWARD (the text is in `message_snapshots`). */
  message_reference?: { type?: number; message_id?: string; channel_id?: string };
  /** A forward's copy of the message it forwards (https://discord.com/developers/docs/resources/message#message-snapshot-object). */
  message_snapshots?: { message?: { content?: string; attachments?: unknown[]; embeds?: unknown[] } }[];
  /** The replied-to message (type 19); null when it was deleted, absent when not fetched. */
  referenced_message?: { id: string; author?: DiscordUser } | null;
}

/** What the bot knows when it reads a message. */
export interface Addressing {
  botUserId: string | undefined;
  /** The bot's managed role in this message's guild (a role mention of it counts as a mention). */
  botRoleId?: string;
  /** True when the message's channel is a thread the bot already posted in. */
  answeredThread: boolean;
}

/** A user's attachment as the bot fetches it: its signed CDN `url`, no credentials needed. */
export interface DiscordFile {
  /** The attachment's snowflake: one file for good, the dedup key of the download. */
  id: string;
  url: string;
  kind: AttachmentKind;
  name?: string;
  size?: number;
}

export type Reading =
  | { kind: "deliver"; inbound: Inbound; files?: DiscordFile[] }
  | { kind: "ignored"; reason: string }
  /** Addressed to the bot, but no text, attachment or embed: the Message Content Intent is missing. */
  | { kind: "empty"; reason: string };

const USER_MESSAGE_TYPES = new Set([0, 19]);
/** message_reference.type of a forward. */
const FORWARD = 1;
const THREAD_CHANNEL_TYPES = new Set([10, 11, 12]);

export function isThreadChannel(m: Pick<DiscordMessage, "channel_type">): boolean {
  return m.channel_type !== undefined && THREAD_CHANNEL_TYPES.has(m.channel_type);
}

/**
 * DMs always reach the agent. In a guild a message does when it mentions the bot (`<@id>`,
 * `<@!id>` or the bot's managed role), replies to a message of the bot, or is posted in a thread
 * the bot already answered in. Bots (this one included), webhooks and system notices never do.
 */
export function readMessage(m: DiscordMessage, who: Addressing): Reading {
  const type = m.type ?? 0;
  if (!USER_MESSAGE_TYPES.has(type)) return { kind: "ignored", reason: `system message (type ${type})` };
  if (who.botUserId !== undefined && m.author.id === who.botUserId)
    return { kind: "ignored", reason: "the bot's own message" };
  if (m.author.bot || m.webhook_id) return { kind: "ignored", reason: "message from a bot or webhook" };
  if (m.guild_id && !addressed(m, who))
    return {
      kind: "ignored",
      reason: "guild message not addressed to the bot (no mention, reply to it, or thread it answered in)",
    };
  if (m.message_reference?.type === FORWARD) return forwarded(m);
  const text = stripMentions(m.content, who).trim();
  const files = filesOf(m.attachments);
  if (!text && files.length === 0) {
    const carriesContent = [m.attachments, m.embeds, m.sticker_items].some((a) => (a?.length ?? 0) > 0);
    if (carriesContent || m.poll) return { kind: "ignored", reason: "no text (embed or sticker only)" };
    return { kind: "empty", reason: "empty content" };
  }
  const reading = deliver(m, text);
  return files.length > 0 && reading.kind === "deliver" ? { ...reading, files } : reading;
}

/** Attachment objects (https://discord.com/developers/docs/resources/message#attachment-object). */
function filesOf(attachments: unknown[] | undefined): DiscordFile[] {
  const out: DiscordFile[] = [];
  for (const raw of attachments ?? []) {
    const a = (raw ?? {}) as Record<string, unknown>;
    if (typeof a.id !== "string" || typeof a.url !== "string") continue;
    out.push({
      id: a.id,
      url: a.url,
      ...claimedFile(a.content_type, a.filename, a.size),
    });
  }
  return out;
}

/**
 * A forward arrives with empty `content` (not a missing intent): the forwarded text is in
 * `message_snapshots[0].message.content`, and reaches the agent quoted under "Forwarded message:",
 * so it is not read as the user's own words.
 */
function forwarded(m: DiscordMessage): Reading {
  const text = (m.message_snapshots?.[0]?.message?.content ?? "").trim();
  if (!text) return { kind: "ignored", reason: "forwarded message without text" };
  const quoted = text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
  return deliver(m, `Forwarded message:\n${quoted}`);
}

function deliver(m: DiscordMessage, text: string): Reading {
  const name = m.author.global_name ?? m.author.username;
  return {
    kind: "deliver",
    inbound: {
      dedupKey: m.id,
      thread: m.channel_id,
      text,
      author: { id: m.author.id, ...(name ? { displayName: name } : {}), isBot: false },
      // A guild channel (or a thread: its own channel id) is a group; without a guild, a DM.
      chat: { type: m.guild_id ? "group" : "direct", id: m.channel_id },
      meta: {
        channelId: m.channel_id,
        messageId: m.id,
        ...(m.guild_id ? { guildId: m.guild_id } : {}),
        ...(isThreadChannel(m) ? { discordThread: true } : {}),
      },
    },
  };
}

function addressed(m: DiscordMessage, who: Addressing): boolean {
  const bot = who.botUserId;
  if (bot === undefined) return false;
  if ((m.mentions ?? []).some((u) => u.id === bot)) return true;
  if (who.botRoleId !== undefined && (m.mention_roles ?? []).includes(who.botRoleId)) return true;
  if (m.referenced_message?.author?.id === bot) return true;
  return who.answeredThread && isThreadChannel(m);
}

function stripMentions(content: string, who: Addressing): string {
  let text = content;
  // The mention and one space after it go; the rest (code indentation included) stays as typed.
  if (who.botUserId) text = text.replace(new RegExp(`<@!?${who.botUserId}> ?`, "g"), "");
  if (who.botRoleId) text = text.replace(new RegExp(`<@&${who.botRoleId}> ?`, "g"), "");
  return text;
}
