// Reads a verified `messages` notification into what the gateway acts on: user messages (text,
// media captions, button/list presses). Status callbacks, group messages and media without a
// caption are skipped, each with the reason, for the log.

export type WhatsAppEvent =
  | { kind: "message"; id: string; from: string; name?: string; text: string }
  | { kind: "choice"; id: string; from: string; optionId: string; title: string; context?: string }
  | { kind: "skipped"; id?: string; reason: string };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const CAPTIONED = new Set(["image", "video", "document"]);

/** Events of one notification, for the phone number `phoneNumberId` only. */
export function readNotification(payload: unknown, phoneNumberId: string): WhatsAppEvent[] {
  if (!isObject(payload) || payload.object !== "whatsapp_business_account")
    return [{ kind: "skipped", reason: "not a whatsapp_business_account notification" }];
  const events: WhatsAppEvent[] = [];
  for (const entry of list(payload.entry)) {
    for (const change of list(entry.changes)) {
      const value = change.value;
      if (change.field !== "messages" || !isObject(value)) continue;
      const metadata = isObject(value.metadata) ? value.metadata : {};
      if (
        phoneNumberId &&
        metadata.phone_number_id !== undefined &&
        metadata.phone_number_id !== phoneNumberId
      ) {
        events.push({
          kind: "skipped",
          reason: `for another phone number id ${String(metadata.phone_number_id)}`,
        });
        continue;
      }
      const contacts = list(value.contacts);
      for (const status of list(value.statuses))
        events.push({ kind: "skipped", id: str(status.id), reason: `status ${String(status.status)}` });
      for (const message of list(value.messages)) events.push(readMessage(message, contacts));
    }
  }
  return events;
}

function readMessage(m: Json, contacts: Json[]): WhatsAppEvent {
  const id = str(m.id);
  const from = str(m.from);
  if (!id || !from) return { kind: "skipped", reason: "message without id or from" };
  if (m.group_id !== undefined) return { kind: "skipped", id, reason: "group message" };
  const contact = contacts.find((c) => c.wa_id === from);
  const name = isObject(contact?.profile) ? str(contact.profile.name) : undefined;
  const base = { id, from, ...(name ? { name } : {}) };
  const type = str(m.type);
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
  if (type === "button" && isObject(m.button)) {
    const text = str(m.button.text);
    return text ? { kind: "message", ...base, text } : { kind: "skipped", id, reason: "empty button" };
  }
  if (type && CAPTIONED.has(type) && isObject(m[type])) {
    // Media is never downloaded: the caption is the message.
    const caption = str((m[type] as Json).caption);
    return caption
      ? { kind: "message", ...base, text: caption }
      : { kind: "skipped", id, reason: `${type} without caption` };
  }
  return { kind: "skipped", id, reason: `unsupported message type ${type ?? "?"}` };
}
