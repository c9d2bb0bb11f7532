// Bot API updates -> what the session takes: inbound messages and button presses.
import type { DecisionKind } from "@agentsvc/agent-core";
import type { Inbound } from "@agentsvc/session-core";

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface TgMessage {
  message_id: number;
  message_thread_id?: number;
  is_topic_message?: boolean;
  from?: TgUser;
  chat: { id: number; type: string };
  text?: string;
  caption?: string;
}

export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  callback_query?: { id: string; from: TgUser; message?: TgMessage; data?: string };
}

/** A chat, or a forum topic inside one: `<chatId>` or `<chatId>:<topicId>`. */
export function threadOf(message: TgMessage): string {
  return message.is_topic_message && message.message_thread_id !== undefined
    ? `${message.chat.id}:${message.message_thread_id}`
    : String(message.chat.id);
}

export function parseThread(thread: string): { chatId: string; topicId?: number } {
  const [chatId, topic] = thread.split(":");
  return topic === undefined
    ? { chatId: chatId as string }
    : { chatId: chatId as string, topicId: Number(topic) };
}

/** The message as an Inbound, or undefined when it carries no text (stickers, joins, ...). */
export function inboundOf(message: TgMessage): Inbound | undefined {
  const text = message.text ?? message.caption;
  if (text === undefined || text.trim() === "") return undefined;
  const from = message.from;
  const name = from
    ? [from.first_name, from.last_name].filter(Boolean).join(" ") || from.username
    : undefined;
  return {
    // Message ids are unique per chat; a redelivered update keeps its message id.
    dedupKey: `${message.chat.id}:${message.message_id}`,
    thread: threadOf(message),
    text,
    author: {
      id: String(from?.id ?? message.chat.id),
      ...(name ? { displayName: name } : {}),
      isBot: from?.is_bot ?? false,
    },
    meta: { chatId: message.chat.id, messageId: message.message_id },
  };
}

const CODES: Record<string, DecisionKind> = { a: "approve", r: "reject" };

/** Button payload: `a:<requestId>` / `r:<requestId>` (callback_data allows 64 bytes). */
export function callbackData(decision: DecisionKind, requestId: string): string {
  return `${decision === "approve" ? "a" : "r"}:${requestId}`;
}

export function parseCallbackData(
  data: string | undefined,
): { decision: DecisionKind; requestId: string } | undefined {
  const m = /^([ar]):(.+)$/.exec(data ?? "");
  const decision = m ? CODES[m[1] as string] : undefined;
  return m && decision ? { decision, requestId: m[2] as string } : undefined;
}
