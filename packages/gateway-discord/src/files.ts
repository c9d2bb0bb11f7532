// A reply's file as a message attachment (https://discord.com/developers/docs/reference#uploading-files):
// multipart/form-data, the message's JSON in `payload_json` naming the file in `attachments`
// (`id` = the part's index), the bytes in `files[0]`; the caption is the message's content.
import type { OutboundFile, SendOptions } from "@agentsvc/adapter-kit";
import { nonceParams } from "./nonce.js";

/** Content is at most 2000 characters; a longer caption is cut rather than losing the file. */
const CONTENT_LIMIT = 2000;

export async function attachmentForm(
  file: OutboundFile,
  options: SendOptions,
  allowedMentions: unknown,
): Promise<FormData> {
  const replyTo = options.meta?.messageId;
  const payload = {
    ...(file.caption ? { content: [...file.caption].slice(0, CONTENT_LIMIT).join("") } : {}),
    allowed_mentions: allowedMentions,
    ...nonceParams(options.idempotencyKey),
    ...(typeof replyTo === "string"
      ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
      : {}),
    attachments: [{ id: 0, filename: file.name }],
  };
  const form = new FormData();
  form.set("payload_json", JSON.stringify(payload));
  const bytes = await file.bytes();
  form.set("files[0]", new Blob([new Uint8Array(bytes)], { type: file.contentType }), file.name);
  return form;
}
