// Bot API updates -> what the session takes: a message for the agent, a button press, or a reason to
// ignore the update (logged at debug). Shapes: https://core.telegram.org/bots/api#update, #message,
// #messageentity, #callbackquery. The bot runs with privacy mode off, so in groups it sees every
// message and picks those addressed to it (https://core.telegram.org/bots/features#privacy-mode).
import type { AttachmentKind, DecisionKind } from "@agentsvc/adapter-kit";
import { decodeDecision, type Inbound } from "@agentsvc/adapter-kit";
import { threadOf } from "./thread.js";

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface TgChat {
  id: number;
  type: string;
  title?: string;
}

export interface TgEntity {
  type: string;
  /** UTF-16 code units, as JavaScript strings count. */
  offset: number;
  length: number;
  user?: TgUser;
}

export interface TgMessage {
  message_id: number;
  message_thread_id?: number;
  is_topic_message?: boolean;
  from?: TgUser;
  /** Set when the message was sent on behalf of a chat (anonymous admins, channels); `from` is then a placeholder. */
  sender_chat?: TgChat;
  is_automatic_forward?: boolean;
  chat: TgChat;
  text?: string;
  entities?: TgEntity[];
  caption?: string;
  caption_entities?: TgEntity[];
  reply_to_message?: TgMessage;
  [field: string]: unknown;
}

export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  message?: TgMessage;
  data?: string;
}

export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  callback_query?: TgCallbackQuery;
  [kind: string]: unknown;
}

/** Who the bot is (getMe): its own messages are ignored and mentions of it addressed it. */
export interface BotIdentity {
  id: number;
  username: string;
}

/**
 * Users Telegram puts in `from` when a message is not from a person: GroupAnonymousBot (anonymous
 * group admins), Channel_Bot (posts on behalf of a channel) and Telegram (777000, automatic
 * forwards). They are shared by everyone, so they are never an author and never decide.
 */
export const PLACEHOLDER_USERS: ReadonlySet<number> = new Set([1087968824, 136817688, 777000]);

/** Message fields that make it a service message (joins, pins, renames, topics, calls ...). */
const SERVICE_FIELDS = [
  "new_chat_members",
  "left_chat_member",
  "new_chat_title",
  "new_chat_photo",
  "delete_chat_photo",
  "group_chat_created",
  "supergroup_chat_created",
  "channel_chat_created",
  "message_auto_delete_timer_changed",
  "migrate_to_chat_id",
  "migrate_from_chat_id",
  "pinned_message",
  "forum_topic_created",
  "forum_topic_edited",
  "forum_topic_closed",
  "forum_topic_reopened",
  "general_forum_topic_hidden",
  "general_forum_topic_unhidden",
  "video_chat_scheduled",
  "video_chat_started",
  "video_chat_ended",
  "video_chat_participants_invited",
  "write_access_allowed",
  "users_shared",
  "chat_shared",
  "boost_added",
  "chat_background_set",
  "proximity_alert_triggered",
  "giveaway_created",
  "giveaway_completed",
] as const;

/** A file a message carries, as getFile takes it (https://core.telegram.org/bots/api#getfile). */
export interface TgFile {
  fileId: string;
  /** Stable across bots and time: the dedup key of the download. */
  uniqueId: string;
  kind: AttachmentKind;
  name?: string;
  size?: number;
}

type TgFileObject = { file_id?: unknown; file_unique_id?: unknown; file_name?: unknown; file_size?: unknown };

/**
 * The files of a message (https://core.telegram.org/bots/api#message): `photo` (the sizes of one
 * picture, the largest last), `document`, `voice`, `audio`, `video`, `video_note`. Stickers and
 * animations are not taken in.
 */
export function filesOf(message: TgMessage): TgFile[] {
  const photo = Array.isArray(message.photo) ? (message.photo.at(-1) as TgFileObject | undefined) : undefined;
  const fields: [TgFileObject | undefined, AttachmentKind][] = [
    [photo, "image"],
    [message.document as TgFileObject | undefined, "document"],
    [message.voice as TgFileObject | undefined, "audio"],
    [message.audio as TgFileObject | undefined, "audio"],
    [message.video as TgFileObject | undefined, "video"],
    [message.video_note as TgFileObject | undefined, "video"],
  ];
  const files: TgFile[] = [];
  for (const [f, kind] of fields) {
    if (!f || typeof f.file_id !== "string" || typeof f.file_unique_id !== "string") continue;
    files.push({
      fileId: f.file_id,
      uniqueId: f.file_unique_id,
      kind,
      ...(typeof f.file_name === "string" ? { name: f.file_name } : {}),
      ...(typeof f.file_size === "number" ? { size: f.file_size } : {}),
    });
  }
  return files;
}

export type Classified =
  | { message: Inbound; files?: TgFile[] }
  | { press: { queryId: string; requestId: string; decision: DecisionKind; by: string } }
  | { ignore: string; answer?: { queryId: string; text: string } };

const ignore = (reason: string): { ignore: string } => ({ ignore: reason });

export function classifyUpdate(update: TgUpdate, bot: BotIdentity): Classified {
  if (update.message) return classifyMessage(update.message, bot);
  if (update.callback_query) return classifyPress(update.callback_query);
  const kind = Object.keys(update).find((k) => k !== "update_id") ?? "unknown";
  // Only message and callback_query are requested (allowed_updates); others arrive only when they
  // were queued before the setting took effect. Edits are not answered: the agent answered the
  // original, and a second turn for a corrected typo would answer twice.
  return ignore(`${kind} updates are not handled`);
}

function classifyMessage(message: TgMessage, bot: BotIdentity): Classified {
  const service = SERVICE_FIELDS.find((f) => message[f] !== undefined);
  if (service) return ignore(`service message (${service})`);
  if (message.is_automatic_forward) return ignore("automatic forward of a linked channel's post");
  const author = authorOf(message, bot);
  if ("ignore" in author) return author;
  const files = filesOf(message);
  const text = message.text ?? message.caption ?? "";
  if (text.trim() === "" && files.length === 0) return ignore("no text and no file");
  const entities = (message.text !== undefined ? message.entities : message.caption_entities) ?? [];
  const group = message.chat.type === "group" || message.chat.type === "supergroup";
  if (!group && message.chat.type !== "private") return ignore(`chat type ${message.chat.type}`);
  const read = readEntities(text, entities, bot);
  if (read.otherBotCommand) return ignore("command for another bot");
  const repliesToBot = message.reply_to_message?.from?.id === bot.id;
  if (group && !read.mentioned && !read.command && !repliesToBot)
    return ignore("group message not addressed to the bot");
  const clean = read.text.trim();
  if (clean === "" && files.length === 0) return ignore("only a mention, no text");
  return {
    ...(files.length > 0 ? { files } : {}),
    message: {
      // Message ids are unique per chat; a redelivered update keeps its message id.
      dedupKey: `${message.chat.id}:${message.message_id}`,
      thread: threadOf(message),
      text: clean,
      author: author.author,
      chat: { type: group ? "group" : "direct", id: String(message.chat.id) },
      meta: { chatId: message.chat.id, messageId: message.message_id, chatType: message.chat.type },
    },
  };
}

function authorOf(message: TgMessage, bot: BotIdentity): { author: Inbound["author"] } | { ignore: string } {
  const chat = message.sender_chat;
  // Sent on behalf of a chat: `from` is a placeholder shared by everyone posting that way.
  if (chat) return { author: { id: `chat:${chat.id}`, ...(chat.title ? { displayName: chat.title } : {}) } };
  const from = message.from;
  if (!from) return ignore("no sender");
  if (from.id === bot.id) return ignore("own message");
  if (from.is_bot) return ignore("from a bot");
  if (PLACEHOLDER_USERS.has(from.id)) return ignore(`placeholder sender ${from.id} without sender_chat`);
  const name = [from.first_name, from.last_name].filter(Boolean).join(" ") || from.username;
  return { author: { id: String(from.id), ...(name ? { displayName: name } : {}), isBot: false } };
}

interface ReadEntities {
  /** The text with mentions of the bot removed and `/cmd@bot` written `/cmd`. */
  text: string;
  mentioned: boolean;
  command: boolean;
  otherBotCommand: boolean;
}

/** Reads mentions and a leading command from the entities Telegram marked (never from guessing). */
function readEntities(text: string, entities: readonly TgEntity[], bot: BotIdentity): ReadEntities {
  const me = `@${bot.username}`.toLowerCase();
  const result: ReadEntities = { text, mentioned: false, command: false, otherBotCommand: false };
  // From the end, so earlier offsets stay valid while the text is edited.
  for (const e of [...entities].sort((a, b) => b.offset - a.offset)) {
    const part = text.slice(e.offset, e.offset + e.length);
    const isMe =
      (e.type === "mention" && part.toLowerCase() === me) ||
      (e.type === "text_mention" && e.user?.id === bot.id);
    if (isMe) {
      result.mentioned = true;
      result.text = cut(result.text, e.offset, e.offset + e.length);
    } else if (e.type === "bot_command" && e.offset === 0) {
      const at = part.indexOf("@");
      const target = at < 0 ? undefined : part.slice(at).toLowerCase();
      if (target !== undefined && target !== me) result.otherBotCommand = true;
      else {
        result.command = true;
        if (at >= 0) result.text = cut(result.text, at, e.length, false);
      }
    }
  }
  return result;
}

/** Removes [start, end) and the spaces before it (or, at the start, after it). */
function cut(text: string, start: number, end: number, spaces = true): string {
  if (!spaces) return text.slice(0, start) + text.slice(end);
  const before = text.slice(0, start).replace(/[ \t]+$/, "");
  const after = text.slice(end);
  return before === "" ? after.replace(/^[ \t]+/, "") : before + after;
}

function classifyPress(query: TgCallbackQuery): Classified {
  const from = query.from;
  // Telegram sends presses with the presser's own id; a placeholder here is never a person.
  if (from.is_bot || PLACEHOLDER_USERS.has(from.id))
    return {
      ignore: `press by placeholder user ${from.id}: it never decides`,
      answer: { queryId: query.id, text: "This button can only be pressed as yourself." },
    };
  const decoded = decodeDecision(query.data ?? "");
  if (!decoded)
    return {
      ignore: "button data is not a decision",
      answer: { queryId: query.id, text: "This request is already closed." },
    };
  return { press: { queryId: query.id, ...decoded, by: String(from.id) } };
}
