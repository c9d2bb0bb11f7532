// A fake WhatsApp Cloud API: the Graph messages route a bot sends through, and the Meta side of the
// webhook (signed deliveries, the subscription handshake, button and list presses). The outbound
// route enforces the platform's limits (4096 text, 3 buttons of 20 characters, 1024 interactive
// body), so an adapter that overruns them fails here as it would against Meta. Like Meta, a text
// sent outside a user's 24-hour customer-service window is accepted (200 and a wamid) and then fails
// by a `failed` status webhook with error 131047; only a template may open the conversation.
// Payloads: https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples ,
// https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components ; error codes:
// https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes . Users who adopted a
// username may arrive by business-scoped user id only (`from_user_id`, contacts[].user_id, no
// phone number) and are addressed with `recipient` instead of `to`.
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerJson, callWebhook, expectAcknowledged, readBody, type WebhookAnswer } from "../http-util.js";
import { HttpFake } from "../http-fake.js";

export interface FakeWhatsAppOptions {
  appSecret: string;
  accessToken: string;
  phoneNumberId: string;
  verifyToken?: string;
  /** Graph version the routes answer on. Default `v21.0`. */
  apiVersion?: string;
  /** Where deliveries go (set later with `webhookUrl`). */
  webhookUrl?: string;
}

/** One message the bot sent, as the fake accepted it. */
export interface WhatsAppSent {
  id: string;
  /** The address the bot used: `to` (a phone number), or `recipient` (a business-scoped user id). */
  to: string;
  addressedBy: "to" | "recipient";
  type: string;
  /** `text.body`, the interactive body text, or a template's body parameters joined by a space. */
  text: string;
  /** Reply-button or list-row ids and titles of an interactive message. */
  options: { id: string; title: string }[];
  interactiveType?: "button" | "list";
  /** Template name and language of a `template` message. */
  template?: { name: string; language: string };
  /** The uploaded media of an image, audio, video or document message (its caption is `text`). */
  media?: { id: string; filename?: string };
  body: Record<string, unknown>;
}

/** The error object of a `failed` status, as Meta sends it. */
export interface WhatsAppStatusError {
  code: number;
  title: string;
  details?: string;
}

/** Documented failure reasons a test can make a sent message fail with. */
export const STATUS_ERRORS = {
  outsideWindow: {
    code: 131047,
    title: "Re-engagement message",
    details:
      "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
  },
  undeliverable: { code: 131026, title: "Message Undeliverable" },
  rateLimited: { code: 130429, title: "Rate limit hit" },
} satisfies Record<string, WhatsAppStatusError>;

export interface WhatsAppInbound {
  /** The sender's phone number (wa_id); omit it for a user known only by `userId`. */
  from?: string;
  /** The sender's business-scoped user id (BSUID, e.g. `US.13491208655302741918`). */
  userId?: string;
  /** The sender's WhatsApp username, when they adopted one. */
  username?: string;
  text: string;
  id?: string;
  name?: string;
  /** Message `timestamp` (Unix seconds, as a string in the payload). Default now. */
  timestamp?: number;
  /** Mark the message as sent in a group. */
  groupId?: string;
}

/** A media message a user sends (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components#messages-object). */
export interface WhatsAppMediaInbound {
  from: string;
  type: "image" | "audio" | "video" | "document" | "sticker";
  /** A media id from `hostMedia`. */
  mediaId: string;
  caption?: string;
  /** A document's file name. */
  filename?: string;
  /** An audio message recorded in WhatsApp (a voice note): `audio.voice: true`. */
  voice?: boolean;
  id?: string;
  name?: string;
}

interface HostedMedia {
  bytes: Buffer;
  mime: string;
  sha256: string;
  expired: boolean;
}

type Json = Record<string, unknown>;

export class FakeWhatsApp extends HttpFake {
  /** Downloads of each media id's URL with the token (the bytes were served). */
  readonly mediaDownloads = new Map<string, number>();
  readonly #media = new Map<string, HostedMedia>();
  /** Files the bot uploaded (POST /<version>/<phone number id>/media), by media id. */
  readonly uploads = new Map<string, { bytes: Buffer; type: string; name: string }>();
  readonly sent: WhatsAppSent[] = [];
  /** Users (phone number or BSUID) whose 24-hour window is closed: a text to them fails by webhook with 131047. */
  readonly windowClosed = new Set<string>();
  /**
   * Status webhooks the fake sent on its own (a closed window), with their answers. Like Meta, one
   * that cannot be delivered (no webhook URL yet, nothing listening) is tried again until it is or
   * the fake closes (then it answers status 0); it never rejects.
   */
  readonly statusDeliveries: Promise<WebhookAnswer>[] = [];
  /** Every call to the messages route, failed ones included. */
  calls = 0;
  webhookUrl: string;
  readonly #options: Required<Omit<FakeWhatsAppOptions, "webhookUrl">>;
  #closed = false;

  private constructor(options: FakeWhatsAppOptions) {
    super();
    this.#options = { apiVersion: "v21.0", verifyToken: "", ...options };
    this.webhookUrl = options.webhookUrl ?? "";
  }

  static async start(options: FakeWhatsAppOptions): Promise<FakeWhatsApp> {
    const fake = new FakeWhatsApp(options);
    await fake.listen();
    return fake;
  }

  override async close(): Promise<void> {
    this.#closed = true;
    await super.close();
  }

  /** `sha256=<hex>` over `body` with the app secret, as Meta signs deliveries. */
  sign(body: string | Uint8Array, secret = this.#options.appSecret): string {
    return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  }

  /** A `messages` notification carrying `messages` (raw message objects) from `from` (a phone number, or a contact object). */
  notification(from: string | Json, messages: Json[], name = "Test User"): Json {
    const contact = typeof from === "string" ? { profile: { name }, wa_id: from } : from;
    return {
      object: "whatsapp_business_account",
      entry: [
        {
          id: "102290129340398",
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: {
                  display_phone_number: "15550783881",
                  phone_number_id: this.#options.phoneNumberId,
                },
                contacts: [contact],
                messages,
              },
            },
          ],
        },
      ],
    };
  }

  /** Delivers a text message; resolves with the webhook's answer (any status). */
  deliverText(message: WhatsAppInbound): Promise<WebhookAnswer> {
    const raw: Json = {
      ...(message.from ? { from: message.from } : {}),
      ...(message.userId ? { from_user_id: message.userId } : {}),
      id: message.id ?? `wamid.${randomBytes(12).toString("hex")}`,
      timestamp: String(message.timestamp ?? Math.floor(Date.now() / 1000)),
      type: "text",
      text: { body: message.text },
      ...(message.groupId ? { group_id: message.groupId } : {}),
    };
    const contact: Json = {
      profile: {
        name: message.name ?? "Test User",
        ...(message.username ? { username: message.username } : {}),
      },
      ...(message.from ? { wa_id: message.from } : {}),
      ...(message.userId ? { user_id: message.userId } : {}),
    };
    return this.deliver(this.notification(contact, [raw]));
  }

  /**
   * Holds a user's media file; returns its media id. Retrieving it follows
   * https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#retrieve-media-url :
   * GET /<version>/<media id> with the token answers `url`, `mime_type`, `sha256`, `file_size`;
   * the URL (on lookaside.fbsbx.com at Meta, here on the fake) needs the same token and "is only
   * valid for 5 minutes" (`expireMediaUrls` makes them answer 404 until retrieved again).
   */
  hostMedia(bytes: Buffer, mime: string): string {
    const id = String(1_000_000_000_000_000 + this.#media.size + 1);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    this.#media.set(id, { bytes, mime, sha256, expired: false });
    return id;
  }

  expireMediaUrls(): void {
    for (const m of this.#media.values()) m.expired = true;
  }

  /** Delivers a media message (image, audio or voice note, video, document, sticker). */
  deliverMedia(message: WhatsAppMediaInbound): Promise<WebhookAnswer> {
    const hosted = this.#media.get(message.mediaId);
    const raw: Json = {
      from: message.from,
      id: message.id ?? `wamid.${randomBytes(12).toString("hex")}`,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: message.type,
      [message.type]: {
        id: message.mediaId,
        mime_type: hosted?.mime ?? "application/octet-stream",
        sha256: hosted?.sha256 ?? "",
        ...(message.caption ? { caption: message.caption } : {}),
        ...(message.filename ? { filename: message.filename } : {}),
        ...(message.type === "audio" ? { voice: message.voice ?? false } : {}),
      },
    };
    return this.deliver(this.notification(message.from, [raw], message.name));
  }

  /**
   * A delivery-status callback for a sent message; `failed` carries `error` in `errors[]` (a failed
   * status has no `contacts`, and names a BSUID recipient in `recipient_user_id`).
   */
  deliverStatus(
    messageId: string,
    status: "sent" | "delivered" | "read" | "failed" = "delivered",
    error?: WhatsAppStatusError,
  ): Promise<WebhookAnswer> {
    const shown = this.sent.find((m) => m.id === messageId);
    const recipient = shown?.to ?? "15550000000";
    const byUserId = shown?.addressedBy === "recipient";
    const payload = this.notification(recipient, []);
    const value = (payload.entry as Json[])[0]?.changes as Json[];
    const v = value[0]?.value as Json;
    delete v.messages;
    delete v.contacts;
    v.statuses = [
      {
        id: messageId,
        status,
        timestamp: String(Math.floor(Date.now() / 1000)),
        ...(byUserId ? { recipient_user_id: recipient } : { recipient_id: recipient }),
        ...(status === "failed" && error
          ? {
              errors: [
                {
                  code: error.code,
                  title: error.title,
                  message: error.title,
                  ...(error.details ? { error_data: { details: error.details } } : {}),
                  href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
                },
              ],
            }
          : {}),
      },
    ];
    return this.deliver(payload);
  }

  /**
   * The user `from` taps option `optionId` of the interactive message `messageId` the bot sent.
   * Throws when the fake never showed that message or option (a user can only press what exists).
   */
  press(from: string, messageId: string, optionId: string, id?: string): Promise<WebhookAnswer> {
    const shown = this.sent.find((m) => m.id === messageId);
    const option = shown?.options.find((o) => o.id === optionId);
    if (!shown || !option || shown.to !== from)
      throw new Error(`fake whatsapp: ${from} was shown no option ${optionId} on ${messageId}`);
    const kind = shown.interactiveType === "list" ? "list_reply" : "button_reply";
    const raw: Json = {
      context: { from: "15550783881", id: messageId },
      from,
      id: id ?? `wamid.${randomBytes(12).toString("hex")}`,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: "interactive",
      interactive: { type: kind, [kind]: { id: option.id, title: option.title } },
    };
    return this.deliver(this.notification(from, [raw]));
  }

  /** Signs and POSTs a payload (object or exact bytes) to the webhook; `headers` override the signature. */
  deliver(payload: Json | string, headers?: Record<string, string>): Promise<WebhookAnswer> {
    const body = typeof payload === "string" ? payload : JSON.stringify(payload);
    return callWebhook(
      this.webhookUrl,
      body,
      headers ?? { "content-type": "application/json", "x-hub-signature-256": this.sign(body) },
    );
  }

  /** Like `deliver`, but rejects unless the webhook acknowledged with 2xx. */
  async deliverAcknowledged(payload: Json | string): Promise<WebhookAnswer> {
    return expectAcknowledged(await this.deliver(payload), "fake whatsapp delivery");
  }

  /**
   * A `failed` status the fake sends on its own. Meta retries a webhook it could not deliver, less and
   * less often, for up to 7 days (developers.facebook.com/docs/whatsapp/cloud-api/webhooks); here:
   * every 50 ms to 1 s until the receiver answers, whatever its status. A message sent before the
   * test set `webhookUrl` (a service on port 0) gets its status once it is set.
   */
  async #statusUntilDelivered(messageId: string, error: WhatsAppStatusError): Promise<WebhookAnswer> {
    for (let wait = 50; ; wait = Math.min(wait * 2, 1_000)) {
      if (this.webhookUrl) {
        try {
          return await this.deliverStatus(messageId, "failed", error);
        } catch {
          // Nothing listening (not yet, or no more): tried again below.
        }
      }
      if (this.#closed) return { status: 0, contentType: null, body: "not delivered: the fake closed" };
      await new Promise((r) => setTimeout(r, wait).unref());
    }
  }

  /** The subscription handshake Meta runs when the webhook URL is saved. */
  handshake(
    challenge: string,
    verifyToken = this.#options.verifyToken,
    mode = "subscribe",
  ): Promise<WebhookAnswer> {
    const url = new URL(this.webhookUrl);
    url.searchParams.set("hub.mode", mode);
    url.searchParams.set("hub.verify_token", verifyToken);
    url.searchParams.set("hub.challenge", challenge);
    return callWebhook(url.toString(), "", {}, "GET");
  }

  async #upload(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${this.#options.accessToken}`)
      return graphError(res, 401, 190, "Invalid OAuth access token.");
    let form: FormData;
    try {
      const type = req.headers["content-type"] ?? "";
      form = await new Response(new Uint8Array(body), { headers: { "content-type": type } }).formData();
    } catch {
      return graphError(res, 400, 100, "Invalid multipart body");
    }
    const problem = uploadProblem(form);
    if (problem) return graphError(res, 400, 131053, problem);
    const file = form.get("file") as File;
    const id = String(2_000_000_000_000_000 + this.uploads.size + 1);
    this.uploads.set(id, { bytes: Buffer.from(await file.arrayBuffer()), type: file.type, name: file.name });
    answerJson(res, 200, { id });
  }

  protected async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const { apiVersion, phoneNumberId, accessToken } = this.#options;
    // The phone-number node (https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account-to-number-current-status/):
    // a cheap authenticated read, what `agentsvc doctor` asks.
    if (req.method === "GET" && path === `/${apiVersion}/${phoneNumberId}`) {
      if (req.headers.authorization !== `Bearer ${accessToken}`)
        return graphError(res, 401, 190, "Invalid OAuth access token.");
      return answerJson(res, 200, {
        verified_name: "Agentsvc Test",
        display_phone_number: "15550783881",
        id: phoneNumberId,
        quality_rating: "GREEN",
      });
    }
    const mediaNode = new RegExp(`^/${apiVersion}/(\\d+)$`).exec(path);
    if (req.method === "GET" && mediaNode && this.#media.has(mediaNode[1] as string)) {
      if (req.headers.authorization !== `Bearer ${accessToken}`)
        return graphError(res, 401, 190, "Invalid OAuth access token.");
      const id = mediaNode[1] as string;
      const m = this.#media.get(id) as HostedMedia;
      m.expired = false;
      return answerJson(res, 200, {
        messaging_product: "whatsapp",
        url: `${this.url}/whatsapp_business/attachments/?mid=${id}`,
        mime_type: m.mime,
        sha256: m.sha256,
        file_size: m.bytes.length,
        id,
      });
    }
    if (req.method === "GET" && path === "/whatsapp_business/attachments/") {
      const id = new URL(req.url ?? "/", "http://x").searchParams.get("mid") ?? "";
      const m = this.#media.get(id);
      if (req.headers.authorization !== `Bearer ${accessToken}`)
        return graphError(res, 401, 190, "Invalid OAuth access token.");
      if (!m || m.expired) return graphError(res, 404, 100, "URL expired or unknown");
      this.mediaDownloads.set(id, (this.mediaDownloads.get(id) ?? 0) + 1);
      res.writeHead(200, { "content-type": m.mime, "content-length": m.bytes.length }).end(m.bytes);
      return;
    }
    if (req.method === "POST" && path === `/${apiVersion}/${phoneNumberId}/media`)
      return this.#upload(req, body, res);
    if (req.method !== "POST" || path !== `/${apiVersion}/${phoneNumberId}/messages`)
      return graphError(res, 404, 100, `Unknown path components: ${path}`);
    this.calls += 1;
    if (req.headers.authorization !== `Bearer ${accessToken}`)
      return graphError(res, 401, 190, "Invalid OAuth access token.");
    if (
      this.failures.answer(res, (status) =>
        graphErrorBody(status === 429 ? 130429 : 131000, `injected ${status}`),
      )
    )
      return;
    let json: Json;
    try {
      json = JSON.parse(body.toString("utf8")) as Json;
    } catch {
      return graphError(res, 400, 100, "Invalid JSON");
    }
    const problem = checkMessage(json, this.uploads);
    if (problem) return graphError(res, 400, 100, problem);
    const sent = recordOf(json);
    this.sent.push(sent);
    answerJson(res, 200, {
      messaging_product: "whatsapp",
      contacts: [
        { input: sent.to, ...(sent.addressedBy === "to" ? { wa_id: sent.to } : { user_id: sent.to }) },
      ],
      messages: [{ id: sent.id }],
    });
    // Outside the window Meta accepts the call, then reports the failure by webhook.
    if (sent.type !== "template" && this.windowClosed.has(sent.to))
      this.statusDeliveries.push(this.#statusUntilDelivered(sent.id, STATUS_ERRORS.outsideWindow));
  }
}

function graphErrorBody(code: number, message: string): Json {
  return { error: { message, type: "OAuthException", code, fbtrace_id: randomBytes(6).toString("hex") } };
}

function graphError(res: ServerResponse, status: number, code: number, message: string): void {
  answerJson(res, status, graphErrorBody(code, message));
}

/** The platform's own limits; a message breaking one is refused with 400 like Meta does. */
/**
 * An upload (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#upload-media):
 * multipart `messaging_product=whatsapp`, `type`, `file`; answers `{ id }`. Limits per
 * https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types :
 * images (JPEG, PNG) 5 MB, audio and video 16 MB, documents 100 MB.
 */
const UPLOAD_LIMITS: [RegExp, number][] = [
  [/^image\/(jpeg|png)$/, 5 * 1024 * 1024],
  [/^(audio|video)\//, 16 * 1024 * 1024],
  [/./, 100 * 1024 * 1024],
];

function uploadProblem(form: FormData): string | undefined {
  if (form.get("messaging_product") !== "whatsapp") return "messaging_product must be whatsapp";
  const file = form.get("file");
  if (!file || typeof file === "string") return "file is required";
  const limit = UPLOAD_LIMITS.find(([re]) => re.test(file.type))?.[1] ?? 0;
  if (file.size > limit) return `file is larger than ${limit} bytes for ${file.type}`;
  return undefined;
}

function checkMessage(m: Json, uploads: Map<string, unknown>): string | undefined {
  if (m.messaging_product !== "whatsapp") return "messaging_product must be whatsapp";
  // `to` (phone number) or `recipient` (business-scoped user id); `to` wins when both are given.
  const address = m.to ?? m.recipient;
  if (typeof address !== "string" || address === "") return "to or recipient is required";
  if (m.to === undefined && !/^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$/.test(address))
    return "recipient must be a business-scoped user id";
  if (m.type === "template") {
    const t = m.template as Json | undefined;
    if (typeof t?.name !== "string" || typeof (t.language as Json | undefined)?.code !== "string")
      return "template.name and template.language.code are required";
    // https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages#parameter-object :
    // a text parameter's `text`; the template guidelines allow no newlines or tabs in it.
    for (const c of (t.components as Json[] | undefined) ?? []) {
      for (const p of (c.parameters as Json[] | undefined) ?? []) {
        if (p.type === "text" && (typeof p.text !== "string" || /[\n\t]/.test(p.text)))
          return "a text parameter must be a string without newlines or tabs";
      }
    }
    return undefined;
  }
  if (m.type === "text") {
    const body = (m.text as Json | undefined)?.body;
    if (typeof body !== "string" || body.length === 0) return "text.body is required";
    if (body.length > 4096) return "text.body is longer than 4096 characters";
    return undefined;
  }
  if (m.type === "image" || m.type === "document" || m.type === "audio" || m.type === "video") {
    const media = m[m.type] as Json | undefined;
    if (typeof media?.id !== "string" || !uploads.has(media.id))
      return `${m.type}.id is not an uploaded media id`;
    if (media.caption !== undefined && (m.type === "audio" || String(media.caption).length > 1024))
      return "caption is not allowed or longer than 1024 characters";
    return undefined;
  }
  if (m.type !== "interactive") return `unsupported type ${String(m.type)}`;
  const i = m.interactive as Json;
  const text = (i.body as Json | undefined)?.text;
  if (typeof text !== "string" || text.length > 1024)
    return "interactive.body.text must be 1..1024 characters";
  const action = i.action as Json;
  if (i.type === "button") {
    const buttons = action.buttons as { reply: { id: string; title: string } }[];
    if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3) return "1 to 3 buttons";
    if (buttons.some((b) => b.reply.title.length > 20)) return "button title longer than 20";
    return undefined;
  }
  if (i.type === "list") {
    const rows = (action.sections as { rows: { title: string }[] }[]).flatMap((s) => s.rows);
    if (typeof action.button !== "string" || action.button.length > 20) return "list button longer than 20";
    if (rows.length < 1 || rows.length > 10) return "1 to 10 rows";
    if (rows.some((r) => r.title.length > 24)) return "row title longer than 24";
    return undefined;
  }
  return `unsupported interactive type ${String(i.type)}`;
}

function recordOf(m: Json): WhatsAppSent {
  const id = `wamid.${randomBytes(12).toString("hex")}`;
  const addressedBy = m.to !== undefined ? "to" : "recipient";
  const to = (m.to ?? m.recipient) as string;
  if (m.type === "template") {
    const t = m.template as Json;
    // The body component's text parameters ({{1}}, {{2}}, ...), joined: what the person reads of them.
    const body = (t.components as Json[] | undefined)?.find((c) => c.type === "body");
    const params = ((body?.parameters as Json[] | undefined) ?? []).map((p) => String(p.text ?? ""));
    return {
      id,
      to,
      addressedBy,
      type: "template",
      text: params.join(" "),
      options: [],
      template: { name: t.name as string, language: (t.language as Json).code as string },
      body: m,
    };
  }
  if (m.type === "image" || m.type === "document" || m.type === "audio" || m.type === "video") {
    const media = m[m.type] as Json;
    return {
      id,
      to,
      addressedBy,
      type: m.type,
      text: typeof media.caption === "string" ? media.caption : "",
      options: [],
      media: {
        id: media.id as string,
        ...(typeof media.filename === "string" ? { filename: media.filename } : {}),
      },
      body: m,
    };
  }
  if (m.type === "text")
    return {
      id,
      to,
      addressedBy,
      type: "text",
      text: (m.text as Json).body as string,
      options: [],
      body: m,
    };
  const i = m.interactive as Json;
  const action = i.action as Json;
  const options =
    i.type === "button"
      ? (action.buttons as { reply: { id: string; title: string } }[]).map((b) => b.reply)
      : (action.sections as { rows: { id: string; title: string }[] }[]).flatMap((s) => s.rows);
  return {
    id,
    to,
    addressedBy,
    type: "interactive",
    text: (i.body as Json).text as string,
    options: options.map((o) => ({ id: o.id, title: o.title })),
    interactiveType: i.type as "button" | "list",
    body: m,
  };
}
