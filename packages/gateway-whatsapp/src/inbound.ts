// Reads a verified `messages` notification into what the gateway acts on: user messages (text,
// media captions, button/list presses) and `failed` statuses of the bot's own messages. Other
// statuses, group messages, media without a caption and messages older than the dedup window are
// skipped, each with the reason, for the log. Shapes:
// https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples and
// https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components . A user who adopted a
// username may come with `from_user_id` (business-scoped user id) and no `from` phone number.

/** The session keeps dedup records 7 days: an older signed message could be a replay it no longer recognises. */
export const DEDUP_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export interface StatusError {
  code?: number;
  title?: string;
  details?: string;
}

/** A `failed` status of a message the bot sent. */
export interface FailedStatus {
  kind: "failed";
  id: string;
  recipient?: string;
  errors: StatusError[];
}

/** A media message's file (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components#messages-object). */
export interface MediaRef {
  /** The media id: GET /<version>/<id> answers its short-lived URL. */
  id: string;
  kind: "image" | "audio" | "video" | "document";
  name?: string;
}

export type WhatsAppEvent =
  | { kind: "message"; id: string; from: string; name?: string; text: string; media?: MediaRef }
  | { kind: "choice"; id: string; from: string; optionId: string; title: string; context?: string }
  | FailedStatus
  | { kind: "skipped"; id?: string; reason: string };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
// Stryker disable next-line ArrayDeclaration: whatever stands for "not a list" is filtered to no objects
const list = (v: unknown): Json[] => (Array.isArray(v) ? v : []).filter(isObject);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const CAPTIONED = new Set(["image", "video", "document"]);
/** Media types and the attachment kind each is taken in as (a sticker is a WebP image; a voice note is audio). */
const MEDIA_KINDS: Record<string, MediaRef["kind"]> = {
  image: "image",
  sticker: "image",
  audio: "audio",
  video: "video",
  document: "document",
};

/**
 * Events of one notification, for the phone number `phoneNumberId` only. `takesMedia` (the entry
 * has a `media` block): a media message is a message with its file, caption or not; without it the
 * spec's row stands (the caption is the message, an uncaptioned media message is skipped).
 */
export function readNotification(
  payload: unknown,
  phoneNumberId: string,
  now = Date.now(),
  takesMedia = false,
): WhatsAppEvent[] {
  if (!isObject(payload) || payload.object !== "whatsapp_business_account")
    return [{ kind: "skipped", reason: "not a whatsapp_business_account notification" }];
  const events: WhatsAppEvent[] = [];
  for (const entry of list(payload.entry)) {
    for (const change of list(entry.changes)) {
      const value = change.value;
      if (change.field !== "messages" || !isObject(value)) {
        // smb_message_echoes (the business's own messages), history, account updates ...
        events.push({ kind: "skipped", reason: `field ${String(change.field)} (not messages)` });
        continue;
      }
      // Meta names the business number in every messages change; one that names another number,
      // or none, is not for this gateway (an app can serve several numbers).
      const metadata = isObject(value.metadata) ? value.metadata : {};
      if (metadata.phone_number_id !== phoneNumberId) {
        events.push({
          kind: "skipped",
          reason: `for another phone number id ${String(metadata.phone_number_id)}`,
        });
        continue;
      }
      const contacts = list(value.contacts);
      for (const status of list(value.statuses)) events.push(readStatus(status));
      for (const message of list(value.messages))
        events.push(readMessage(message, contacts, now, takesMedia));
    }
  }
  return events;
}

function readStatus(status: Json): WhatsAppEvent {
  const id = str(status.id);
  if (status.status !== "failed" || !id)
    return { kind: "skipped", ...(id ? { id } : {}), reason: `status ${String(status.status)}` };
  const recipient = str(status.recipient_id) ?? str(status.recipient_user_id);
  const errors = list(status.errors).map((e) => ({
    ...(typeof e.code === "number" ? { code: e.code } : {}),
    ...(str(e.title) ? { title: str(e.title) } : {}),
    ...(isObject(e.error_data) && str(e.error_data.details) ? { details: str(e.error_data.details) } : {}),
  }));
  return { kind: "failed", id, ...(recipient ? { recipient } : {}), errors };
}

function readMessage(m: Json, contacts: Json[], now: number, takesMedia: boolean): WhatsAppEvent {
  const id = str(m.id);
  // The phone number when Meta shares it, else the business-scoped user id.
  const phone = str(m.from);
  const userId = str(m.from_user_id);
  const from = phone ?? userId;
  if (!id || !from) return { kind: "skipped", reason: "message without id or sender" };
  if (m.group_id !== undefined) return { kind: "skipped", id, reason: "group message" };
  const sentAt = Number(str(m.timestamp) ?? Number.NaN) * 1000;
  if (!Number.isFinite(sentAt)) return { kind: "skipped", id, reason: "message without timestamp" };
  // Stryker disable next-line EqualityOperator: the boundary is one millisecond (a message exactly 7 days old); either side is a choice, not a promise
  if (now - sentAt > DEDUP_WINDOW_MS)
    return { kind: "skipped", id, reason: "message older than the dedup window (a replay?)" };
  const contact = contacts.find(
    (c) => (phone !== undefined && c.wa_id === phone) || (userId !== undefined && c.user_id === userId),
  );
  const name = isObject(contact?.profile) ? str(contact.profile.name) : undefined;
  const base = { id, from, ...(name ? { name } : {}) };
  const type = str(m.type);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: Meta sends a `text` object only with type text
  if (type === "text" && isObject(m.text)) {
    const text = str(m.text.body);
    return text ? { kind: "message", ...base, text } : { kind: "skipped", id, reason: "empty text" };
  }
  if (type === "interactive" && isObject(m.interactive)) {
    const reply = m.interactive.button_reply ?? m.interactive.list_reply;
    if (!isObject(reply) || !str(reply.id))
      return { kind: "skipped", id, reason: "interactive without a reply" };
    const context = isObject(m.context) ? str(m.context.id) : undefined;
    return {
      kind: "choice",
      id,
      from,
      optionId: str(reply.id) as string,
      title: str(reply.title) ?? "",
      ...(context ? { context } : {}),
    };
  }
  // Stryker disable next-line ConditionalExpression: Meta sends a `button` object only with type button
  if (type === "button" && isObject(m.button)) {
    const text = str(m.button.text);
    // Stryker disable next-line StringLiteral: the gateway delivers every event that is not skipped, failed or a choice
    return text ? { kind: "message", ...base, text } : { kind: "skipped", id, reason: "empty button" };
  }
  const file = type ? m[type] : undefined;
  if (takesMedia && type && MEDIA_KINDS[type] && isObject(file) && str(file.id)) {
    const name = str(file.filename);
    const media: MediaRef = {
      id: str(file.id) as string,
      kind: MEDIA_KINDS[type],
      ...(name ? { name } : {}),
    };
    return { kind: "message", ...base, text: str(file.caption) ?? "", media };
  }
  if (type && CAPTIONED.has(type) && isObject(m[type])) {
    // Media is never downloaded: the caption is the message.
    const caption = str((m[type] as Json).caption);
    return caption
      ? // Stryker disable next-line StringLiteral: the gateway delivers every event that is not skipped, failed or a choice
        { kind: "message", ...base, text: caption }
      : { kind: "skipped", id, reason: `${type} without caption` };
  }
  return { kind: "skipped", id, reason: `unsupported message type ${type ?? "?"}` };
}
