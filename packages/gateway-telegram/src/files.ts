// A reply's file as one Bot API upload (https://core.telegram.org/bots/api#sending-files):
// multipart/form-data, sendPhoto for a photo Telegram shows inline (JPEG, PNG, WebP up to 10 MB,
// https://core.telegram.org/bots/api#sendphoto), sendDocument for everything else (up to 50 MB,
// https://core.telegram.org/bots/api#senddocument), the name kept as the part's filename.
import type { OutboundFile, SendOptions } from "@agentsvc/adapter-kit";
import { parseThread } from "./thread.js";

const PHOTO_TYPES = new Set(["image/jpeg", "image/png", "image/webp"]);
const PHOTO_LIMIT = 10 * 1024 * 1024;
/** "Photo caption ... 0-1024 characters after entities parsing"; sent as plain text (no parse mode). */
const CAPTION_LIMIT = 1024;

export interface Upload {
  method: "sendPhoto" | "sendDocument";
  form: FormData;
}

export async function uploadOf(thread: string, file: OutboundFile, options: SendOptions): Promise<Upload> {
  const { chatId, topicId } = parseThread(thread);
  const photo = PHOTO_TYPES.has(file.contentType) && file.size <= PHOTO_LIMIT;
  const form = new FormData();
  form.set("chat_id", String(chatId));
  if (topicId) form.set("message_thread_id", String(topicId));
  const replyTo = options.meta?.messageId;
  if (typeof replyTo === "number")
    form.set("reply_parameters", JSON.stringify({ message_id: replyTo, allow_sending_without_reply: true }));
  if (file.caption) form.set("caption", [...file.caption].slice(0, CAPTION_LIMIT).join(""));
  const bytes = await file.bytes();
  const blob = new Blob([new Uint8Array(bytes)], { type: file.contentType });
  form.set(photo ? "photo" : "document", blob, file.name);
  return { method: photo ? "sendPhoto" : "sendDocument", form };
}
