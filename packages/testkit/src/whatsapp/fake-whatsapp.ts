// A fake WhatsApp Cloud API: the Graph messages route a bot sends through, and the Meta side of the
// webhook (signed deliveries, the subscription handshake, button and list presses). The outbound
// route enforces the platform's limits (4096 text, 3 buttons of 20 characters, 1024 interactive
// body), so an adapter that overruns them fails here as it would against Meta.
import { createHmac, randomBytes } from "node:crypto";
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
  to: string;
  type: string;
  /** `text.body`, or the interactive body text. */
  text: string;
  /** Reply-button or list-row ids and titles of an interactive message. */
  options: { id: string; title: string }[];
  interactiveType?: "button" | "list";
  body: Record<string, unknown>;
}

export interface WhatsAppInbound {
  from: string;
  text: string;
  id?: string;
  name?: string;
  /** Mark the message as sent in a group. */
  groupId?: string;
}

type Json = Record<string, unknown>;

export class FakeWhatsApp extends HttpFake {
  readonly sent: WhatsAppSent[] = [];
  /** Every call to the messages route, failed ones included. */
  calls = 0;
  webhookUrl: string;
  readonly #options: Required<Omit<FakeWhatsAppOptions, "webhookUrl">>;

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

  /** `sha256=<hex>` over `body` with the app secret, as Meta signs deliveries. */
  sign(body: string | Uint8Array, secret = this.#options.appSecret): string {
    return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  }

  /** A `messages` notification carrying `messages` (raw message objects) from `from`. */
  notification(from: string, messages: Json[], name = "Test User"): Json {
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
                contacts: [{ profile: { name }, wa_id: from }],
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
      from: message.from,
      id: message.id ?? `wamid.${randomBytes(12).toString("hex")}`,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: "text",
      text: { body: message.text },
      ...(message.groupId ? { group_id: message.groupId } : {}),
    };
    return this.deliver(this.notification(message.from, [raw], message.name));
  }

  /** A delivery-status callback (sent/delivered/read) for a sent message. */
  deliverStatus(
    messageId: string,
    status: "sent" | "delivered" | "read" = "delivered",
  ): Promise<WebhookAnswer> {
    const recipient = this.sent.find((m) => m.id === messageId)?.to ?? "15550000000";
    const payload = this.notification(recipient, []);
    const value = (payload.entry as Json[])[0]?.changes as Json[];
    const v = value[0]?.value as Json;
    delete v.messages;
    delete v.contacts;
    v.statuses = [
      { id: messageId, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: recipient },
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

  protected async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const { apiVersion, phoneNumberId, accessToken } = this.#options;
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
    const problem = checkMessage(json);
    if (problem) return graphError(res, 400, 100, problem);
    const sent = recordOf(json);
    this.sent.push(sent);
    answerJson(res, 200, {
      messaging_product: "whatsapp",
      contacts: [{ input: sent.to, wa_id: sent.to }],
      messages: [{ id: sent.id }],
    });
  }
}

function graphErrorBody(code: number, message: string): Json {
  return { error: { message, type: "OAuthException", code, fbtrace_id: randomBytes(6).toString("hex") } };
}

function graphError(res: ServerResponse, status: number, code: number, message: string): void {
  answerJson(res, status, graphErrorBody(code, message));
}

/** The platform's own limits; a message breaking one is refused with 400 like Meta does. */
function checkMessage(m: Json): string | undefined {
  if (m.messaging_product !== "whatsapp") return "messaging_product must be whatsapp";
  if (typeof m.to !== "string" || m.to === "") return "to is required";
  if (m.type === "text") {
    const body = (m.text as Json | undefined)?.body;
    if (typeof body !== "string" || body.length === 0) return "text.body is required";
    if (body.length > 4096) return "text.body is longer than 4096 characters";
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
  if (m.type === "text")
    return {
      id,
      to: m.to as string,
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
    to: m.to as string,
    type: "interactive",
    text: (i.body as Json).text as string,
    options: options.map((o) => ({ id: o.id, title: o.title })),
    interactiveType: i.type as "button" | "list",
    body: m,
  };
}
