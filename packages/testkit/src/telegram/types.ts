// The slice of the Bot API's objects the fake speaks (field names as the Bot API documents them).

export interface TelegramUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface TelegramChatRef {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  title?: string;
}

export interface InlineKeyboardButton {
  text: string;
  callback_data?: string;
  url?: string;
}

export interface InlineKeyboardMarkup {
  inline_keyboard: InlineKeyboardButton[][];
}

export interface MessageEntity {
  type: string;
  /** In UTF-16 code units. */
  offset: number;
  length: number;
  user?: TelegramUser;
}

export interface TelegramMessage {
  message_id: number;
  message_thread_id?: number;
  is_topic_message?: boolean;
  from?: TelegramUser;
  chat: TelegramChatRef;
  date: number;
  sender_chat?: TelegramChatRef;
  text?: string;
  entities?: MessageEntity[];
  caption?: string;
  caption_entities?: MessageEntity[];
  reply_to_message?: TelegramMessage;
  reply_markup?: InlineKeyboardMarkup;
}

export interface CallbackQuery {
  id: string;
  from: TelegramUser;
  message?: TelegramMessage;
  chat_instance: string;
  data?: string;
}

/**
 * One update: `update_id` plus exactly one optional field naming its kind
 * (https://core.telegram.org/bots/api#update). The fake types the two kinds a bot usually asks for;
 * any other kind (`edited_message`, `channel_post`, `my_chat_member`, ...) passes through as JSON.
 */
export interface Update {
  update_id: number;
  message?: TelegramMessage;
  callback_query?: CallbackQuery;
  [kind: string]: unknown;
}

/** An update the fake did not hand out because the bot's `allowed_updates` excludes its kind. */
export interface WithheldUpdate {
  update: Update;
  reason: string;
}

export interface TelegramApiCall {
  method: string;
  params: Record<string, unknown>;
  at: number;
}

/** What the fake does to the next matching call instead of answering it. */
export type TelegramFault =
  | { status: 429; retryAfter: number }
  | { status: 500 | 502 }
  /**
   * A refusal in the Bot API's own words (https://core.telegram.org/bots/api#making-requests:
   * `ok: false`, `error_code`, `description`), e.g. 400 "Bad Request: can't parse entities: ...".
   */
  | { status: 400 | 403; description: string }
  | { status: 409; reason: "poller" | "webhook" }
  /** The connection is destroyed without an answer. */
  | { drop: true }
  /** The request is never answered (a zombie connection). */
  | { hang: true };

export type MethodAnswer = { ok: true; result: unknown } | { ok: false; status: number; description: string };
