// The conversation side of the Telegram fake: users write and press buttons; the bot's sends,
// edits, chat actions and callback answers are checked like the Bot API checks them and recorded.
import { parseTelegramHtml } from "./html.js";
import type {
  CallbackQuery,
  InlineKeyboardMarkup,
  MessageEntity,
  MethodAnswer,
  TelegramChatRef,
  TelegramMessage,
  TelegramUser,
  Update,
} from "./types.js";

const MESSAGE_LIMIT = 4096;

/** A message the bot sent, with its current text and keyboard. */
export interface BotMessage {
  chatId: number;
  messageId: number;
  threadId?: number;
  /** Visible text (after the parse mode). */
  text: string;
  /** The text exactly as the bot sent it. */
  raw: string;
  parseMode?: string;
  replyMarkup?: InlineKeyboardMarkup;
  replyTo?: number;
  /** How many times it was edited. */
  edits: number;
}

/** One `sendMessageDraft` call the fake accepted: what the user's private chat showed as the draft. */
export interface DraftShown {
  chatId: number;
  draftId: number;
  threadId?: number;
  /** Visible text (after the parse mode). */
  text: string;
  at: number;
}

export interface UserMessageInput {
  chatId: number;
  text: string;
  from?: Partial<TelegramUser> & { id: number };
  /** Default: the next message id of the chat. Reuse one to send the same message again. */
  messageId?: number;
  chatType?: TelegramChatRef["type"];
  /** Forum topic id. */
  threadId?: number;
  /** The message answers this one (a bot message or a user message of the same chat). */
  replyTo?: number;
  /** Sent on behalf of a chat (an anonymous admin: the group itself; or a channel); `from` becomes Telegram's placeholder user. */
  senderChat?: TelegramChatRef;
}

/**
 * The entities Telegram's servers mark in a text (https://core.telegram.org/bots/api#messageentity):
 * `@username` mentions (5-32 letters, digits, underscores) and `/command` or `/command@bot`
 * (https://core.telegram.org/bots/features#commands), each at the start of a word.
 */
export function entitiesOf(text: string): MessageEntity[] {
  const found: MessageEntity[] = [];
  for (const m of text.matchAll(
    /(^|[\s(])(@[A-Za-z0-9_]{5,32}|\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{5,32})?)(?![A-Za-z0-9_])/g,
  )) {
    const offset = (m.index ?? 0) + (m[1] as string).length;
    const part = m[2] as string;
    found.push({ type: part.startsWith("@") ? "mention" : "bot_command", offset, length: part.length });
  }
  return found;
}

/** Placeholder senders Telegram puts in `from` for messages sent on behalf of a chat. */
const GROUP_ANONYMOUS_BOT: TelegramUser = {
  id: 1087968824,
  is_bot: true,
  first_name: "Group",
  username: "GroupAnonymousBot",
};
const CHANNEL_BOT: TelegramUser = {
  id: 136817688,
  is_bot: true,
  first_name: "Channel",
  username: "Channel_Bot",
};

const bad = (description: string): MethodAnswer => ({
  ok: false,
  status: 400,
  description: `Bad Request: ${description}`,
});

export class TelegramChat {
  /** Every message the bot sent, in order. */
  readonly botMessages: BotMessage[] = [];
  readonly chatActions: { chatId: number; action: string; at: number }[] = [];
  /** Callback query id -> the answer the bot gave (undefined while unanswered). */
  readonly callbackAnswers = new Map<string, { text?: string } | undefined>();
  /** Every draft update shown, in order. */
  readonly drafts: DraftShown[] = [];
  #nextMessageId = 1_000;
  #nextCallback = 1;

  #bot: TelegramUser | undefined;

  constructor(
    private readonly push: (update: Omit<Update, "update_id">) => number,
    bot?: TelegramUser,
  ) {
    this.#bot = bot;
  }

  /** A new message id of the bot (file messages share the sequence with text ones). */
  nextMessageId(): number {
    return this.#nextMessageId++;
  }

  /** A user writes to the bot; returns the update id. */
  userSends(input: UserMessageInput): number {
    const from: TelegramUser = {
      is_bot: false,
      first_name: `User ${input.from?.id ?? input.chatId}`,
      ...input.from,
    } as TelegramUser;
    const chat: TelegramChatRef = {
      id: input.chatId,
      type: input.chatType ?? (input.chatId > 0 ? "private" : "supergroup"),
    };
    const sender = input.senderChat;
    const message: TelegramMessage = {
      message_id: input.messageId ?? this.#nextMessageId++,
      from: sender ? (sender.id === input.chatId ? GROUP_ANONYMOUS_BOT : CHANNEL_BOT) : from,
      ...(sender ? { sender_chat: sender } : {}),
      chat,
      date: Math.floor(Date.now() / 1000),
      text: input.text,
    };
    const entities = entitiesOf(input.text);
    if (entities.length > 0) message.entities = entities;
    if (input.replyTo !== undefined) {
      const bot = this.botMessages.find((m) => m.chatId === input.chatId && m.messageId === input.replyTo);
      message.reply_to_message = bot
        ? { ...this.#asMessage(bot), ...(this.#bot ? { from: this.#bot } : {}) }
        : { message_id: input.replyTo, chat, date: message.date };
    }
    if (input.threadId !== undefined) {
      message.message_thread_id = input.threadId;
      message.is_topic_message = true;
    }
    return this.push({ message });
  }

  /** A user presses the inline button carrying `data` on a bot message; fails when no such button is shown. */
  press(input: { chatId: number; messageId: number; data: string; from: { id: number } }): {
    updateId: number;
    callbackQueryId: string;
  } {
    const msg = this.botMessages.find((m) => m.chatId === input.chatId && m.messageId === input.messageId);
    const shown = msg?.replyMarkup?.inline_keyboard.flat().some((b) => b.callback_data === input.data);
    if (!msg || !shown)
      throw new Error(`telegram fake: message ${input.messageId} shows no button "${input.data}"`);
    const id = `cq${this.#nextCallback++}`;
    const query: CallbackQuery = {
      id,
      from: { id: input.from.id, is_bot: false, first_name: `User ${input.from.id}` },
      message: this.#asMessage(msg),
      chat_instance: String(input.chatId),
      data: input.data,
    };
    this.callbackAnswers.set(id, undefined);
    return { updateId: this.push({ callback_query: query }), callbackQueryId: id };
  }

  /**
   * A user (or an admin) deletes one of the bot's messages, e.g. a streamed preview. Telegram sends
   * the bot no update for it; an edit of it then answers 400 "Bad Request: message to edit not found".
   */
  deleteBotMessage(chatId: number, messageId: number): boolean {
    const i = this.botMessages.findIndex((m) => m.chatId === chatId && m.messageId === messageId);
    if (i < 0) return false;
    this.botMessages.splice(i, 1);
    return true;
  }

  /** Answers a bot method call; undefined for a method the fake does not know. */
  call(method: string, p: Record<string, unknown>, bot: TelegramUser): MethodAnswer | undefined {
    switch (method) {
      case "sendMessage":
        return this.#send(p, bot);
      case "editMessageText":
        return this.#edit(p, true);
      case "sendMessageDraft":
        return this.#draft(p);
      case "editMessageReplyMarkup":
        return this.#edit(p, false);
      case "sendChatAction":
        if (p.chat_id === undefined || !p.action) return bad("chat_id and action are required");
        this.chatActions.push({ chatId: Number(p.chat_id), action: String(p.action), at: Date.now() });
        return { ok: true, result: true };
      case "answerCallbackQuery": {
        const id = String(p.callback_query_id ?? "");
        if (!this.callbackAnswers.has(id) || this.callbackAnswers.get(id) !== undefined)
          return bad("query is too old and response timeout expired or query ID is invalid");
        // "Text of the notification ... 0-200 characters" (https://core.telegram.org/bots/api#answercallbackquery);
        // a longer one is refused as MESSAGE_TOO_LONG and the query stays unanswered.
        if (typeof p.text === "string" && p.text.length > 200) return bad("MESSAGE_TOO_LONG");
        this.callbackAnswers.set(id, p.text === undefined ? {} : { text: String(p.text) });
        return { ok: true, result: true };
      }
      default:
        return undefined;
    }
  }

  #render(p: Record<string, unknown>): { ok: true; text: string; raw: string } | MethodAnswer {
    const raw = typeof p.text === "string" ? p.text : "";
    let text = raw;
    if (p.parse_mode === "HTML") {
      const parsed = parseTelegramHtml(raw);
      if (!parsed.ok) return { ok: false, status: 400, description: parsed.description };
      text = parsed.text;
    }
    if (text.trim() === "") return bad("message text is empty");
    if (text.length > MESSAGE_LIMIT) return bad("message is too long");
    return { ok: true, text, raw };
  }

  #markup(p: Record<string, unknown>): InlineKeyboardMarkup | undefined | MethodAnswer {
    const m = p.reply_markup as InlineKeyboardMarkup | undefined;
    if (!m) return undefined;
    for (const b of m.inline_keyboard?.flat() ?? []) {
      if (
        b.callback_data !== undefined &&
        (Buffer.byteLength(b.callback_data) < 1 || Buffer.byteLength(b.callback_data) > 64)
      )
        return bad("BUTTON_DATA_INVALID");
    }
    return m;
  }

  #send(p: Record<string, unknown>, bot: TelegramUser): MethodAnswer {
    if (p.chat_id === undefined) return bad("chat_id is empty");
    const rendered = this.#render(p);
    if (!("text" in rendered)) return rendered;
    const markup = this.#markup(p);
    if (markup && "ok" in markup) return markup;
    const reply = p.reply_parameters as { message_id?: number } | undefined;
    const msg: BotMessage = {
      chatId: Number(p.chat_id),
      messageId: this.#nextMessageId++,
      text: rendered.text,
      raw: rendered.raw,
      edits: 0,
      ...(p.message_thread_id !== undefined ? { threadId: Number(p.message_thread_id) } : {}),
      ...(typeof p.parse_mode === "string" ? { parseMode: p.parse_mode } : {}),
      ...(markup ? { replyMarkup: markup } : {}),
      ...(reply?.message_id !== undefined ? { replyTo: reply.message_id } : {}),
    };
    this.botMessages.push(msg);
    return { ok: true, result: { ...this.#asMessage(msg), from: bot } };
  }

  /**
   * A draft streamed into a private chat (https://core.telegram.org/bots/api#sendmessagedraft):
   * `chat_id` of a private chat, a non-zero `draft_id`, text of 1-4096 characters after entities
   * parsing. Telegram shows it as a short-lived preview (it vanishes unless a message follows) and
   * answers True. A group chat is refused with the error bots see there, TEXTDRAFT_PEER_INVALID.
   */
  #draft(p: Record<string, unknown>): MethodAnswer {
    if (p.chat_id === undefined) return bad("chat_id is empty");
    const chatId = Number(p.chat_id);
    if (!(chatId > 0)) return bad("TEXTDRAFT_PEER_INVALID");
    const draftId = Number(p.draft_id);
    if (!Number.isInteger(draftId) || draftId === 0) return bad("draft_id must be non-zero");
    const rendered = this.#render(p);
    if (!("text" in rendered)) return rendered;
    this.drafts.push({
      chatId,
      draftId,
      text: rendered.text,
      at: Date.now(),
      ...(p.message_thread_id !== undefined ? { threadId: Number(p.message_thread_id) } : {}),
    });
    return { ok: true, result: true };
  }

  #edit(p: Record<string, unknown>, withText: boolean): MethodAnswer {
    const msg = this.botMessages.find(
      (m) => m.chatId === Number(p.chat_id) && m.messageId === Number(p.message_id),
    );
    if (!msg) return bad("message to edit not found");
    const markup = this.#markup(p);
    if (markup && "ok" in markup) return markup;
    let text = msg.text;
    let raw = msg.raw;
    if (withText) {
      const rendered = this.#render(p);
      if (!("text" in rendered)) return rendered;
      ({ text, raw } = rendered);
    }
    if (text === msg.text && JSON.stringify(markup) === JSON.stringify(msg.replyMarkup))
      return bad(
        "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
      );
    Object.assign(msg, { text, raw, edits: msg.edits + 1 });
    if (markup) msg.replyMarkup = markup;
    else delete msg.replyMarkup;
    return { ok: true, result: this.#asMessage(msg) };
  }

  #asMessage(m: BotMessage): TelegramMessage {
    return {
      message_id: m.messageId,
      chat: { id: m.chatId, type: m.chatId > 0 ? "private" : "supergroup" },
      date: Math.floor(Date.now() / 1000),
      text: m.text,
      ...(m.threadId !== undefined ? { message_thread_id: m.threadId } : {}),
      ...(m.replyMarkup ? { reply_markup: m.replyMarkup } : {}),
    };
  }
}
