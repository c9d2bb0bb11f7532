// The `twilio` push-style gateway (Twilio Programmable Messaging, SMS). Inbound: Twilio's
// form-encoded webhook at /webhooks/twilio, answered with an empty TwiML <Response>. Outbound: the
// Messages REST call. SMS has no threads and no buttons: one conversation per sender number, and
// approvals go as the session's plain-text prompt (a newer request to a number replaces the open one).
import {
  attachmentKindOf,
  type AttachmentKind,
  type AttachmentRef,
  fileNote,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type OutboundFile,
  type GatewayFactory,
  readSecrets,
  type SendOptions,
  type SendResult,
  type WebhookResponse,
  type WebhookRoute,
  GatewayLifetime,
} from "@agentsvc/adapter-kit";
import { fetchPlatformFile, webhookRoute } from "@agentsvc/webhook-kit";
import { createMessage, type MessagesTarget } from "./api.js";
import { plainTextPieces } from "./format.js";
import { parseDelivery, type TwilioDelivery, verifyDelivery } from "./webhook.js";
import { DEFAULT_API_BASE_URL } from "./schema.js";

/** Twilio refuses a Body longer than 1600 characters (error 21617). */
export const MESSAGE_LIMIT = 1600;
export const EMPTY_TWIML = "<Response></Response>";

export interface TwilioGatewayOptions {
  accountSidEnvVar: string;
  authTokenEnvVar: string;
  /** Environment variable holding the bot's E.164 number. */
  fromEnvVar: string;
  /** When set, replies go from this Messaging Service instead of `from`. */
  messagingServiceSid?: string;
  /** The exact URL configured in Twilio's console (query included), used in the signature base behind a proxy. */
  publicUrl?: string;
  /** REST base URL. Default `https://api.twilio.com`. */
  apiBaseUrl?: string;
  /**
   * The entry's `media` block (config-schema's `mediaPolicyOf`): the kinds and size of MMS files
   * taken in. Absent: a file is refused (`disabled`) without a download and the session says so.
   */
  media?: { types: readonly AttachmentKind[]; maxBytes: number };
  name?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Where an MMS file may come from: its Media URL on api.twilio.com redirects to a short-lived URL
 * on mms.twiliocdn.com (media protected by HTTP Basic auth) or s3-external-1.amazonaws.com (older,
 * unprotected media), per Twilio's "Protect Media Access with HTTP Basic Authentication".
 */
const MEDIA_HOSTS = ["api.twilio.com", "mms.twiliocdn.com", "s3-external-1.amazonaws.com"];

/**
 * Whether a Media URL gets the account's Basic credentials: only on Twilio's API origin (or the
 * configured API base's, a proxy or a fake). Twilio asks for them on the Media URL only ("Enforce
 * HTTP Auth on Media URLs"); the short-lived URL it redirects to needs none, and the storage hosts
 * are not Twilio's to hear the Auth Token (s3-external-1.amazonaws.com is shared by every S3 user).
 */
function takesCredentials(url: string, apiBaseUrl: string): boolean {
  if (!URL.canParse(url)) return false;
  const origin = new URL(url).origin;
  return origin === new URL(DEFAULT_API_BASE_URL).origin || origin === new URL(apiBaseUrl).origin;
}

const twiml = (): WebhookResponse => ({
  status: 200,
  headers: { "content-type": "text/xml" },
  body: EMPTY_TWIML,
});

export class TwilioGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "twilio";
  readonly name = "twilio";
  readonly capabilities: GatewayCapabilities = { threads: false, interactiveActions: false };
  readonly messageLimit = MESSAGE_LIMIT;
  readonly webhooks: readonly WebhookRoute[];
  readonly #options: TwilioGatewayOptions;
  #target: MessagesTarget | undefined;
  readonly #life = new GatewayLifetime();

  constructor(options: TwilioGatewayOptions) {
    this.#options = options;
    this.webhooks = [
      webhookRoute<TwilioDelivery>({
        context: () => (this.#target ? this.#life.context : undefined),
        // The signature covers the decoded parameters, so verify decodes the form; nothing is acted on before it.
        verify: (req, ctx) =>
          verifyDelivery(
            req,
            { authToken: this.#target?.authToken ?? "", url: this.#options.publicUrl },
            ctx,
          ),
        parse: (req, ctx) =>
          parseDelivery(
            req,
            { accountSid: this.#target?.accountSid ?? "", number: this.#target?.from ?? "" },
            ctx,
          ),
        handle: (delivery, _req, ctx) => this.#handle(delivery, ctx),
        ack: twiml(),
      }),
    ];
  }

  async start(context: GatewayContext): Promise<void> {
    const o = this.#options;
    const secrets = readSecrets(
      context,
      { accountSid: o.accountSidEnvVar, authToken: o.authTokenEnvVar, from: o.fromEnvVar },
      {
        ...(o.env ? { env: o.env } : {}),
        // A Messaging Service picks the sender itself.
        ...(o.messagingServiceSid ? { optional: ["from" as const] } : {}),
        gateway: "twilio",
        describe: {
          accountSid: "the Account SID (AC...) from the Twilio console",
          authToken: "the primary Auth Token (it signs the webhooks)",
          from: "the bot's number in E.164 form (+15005550006)",
        },
      },
    );
    this.#target = {
      apiBaseUrl: o.apiBaseUrl ?? DEFAULT_API_BASE_URL,
      authTokenEnvVar: o.authTokenEnvVar,
      ...secrets,
      ...(o.messagingServiceSid ? { messagingServiceSid: o.messagingServiceSid } : {}),
    };
    this.#life.begin(context);
  }

  async stop(): Promise<void> {
    this.#life.end();
  }

  /** Markdown -> plain text: an SMS shows markup characters literally. */
  /**
   * The reply's Markdown (no `format`: the session hands it over as written) cut on its tree into
   * plain SMS text pieces of at most MESSAGE_LIMIT characters, each rendered on its own.
   */
  chunk(markdown: string): string[] {
    return plainTextPieces(markdown, MESSAGE_LIMIT);
  }

  async send(thread: string, text: string, _options: SendOptions): Promise<SendResult | undefined> {
    if (!this.#target || !this.#life.context) throw new Error("twilio gateway is not started");
    const sid = await createMessage(this.#target, thread, text, this.#life.signal);
    return sid ? { messageId: sid } : {};
  }

  /**
   * One file of a reply as an MMS: Twilio fetches it from `MediaUrl`, the service's signed
   * short-lived URL of the file, with the caption as the Body. Without such a URL (no public base
   * URL configured) the file goes as a text note naming it.
   */
  async sendFile(thread: string, file: OutboundFile, options: SendOptions): Promise<SendResult | undefined> {
    if (!this.#target || !this.#life.context) throw new Error("twilio gateway is not started");
    if (!file.url) return this.send(thread, fileNote(file), options);
    const caption = file.caption ? [...file.caption].slice(0, MESSAGE_LIMIT).join("") : "";
    const sid = await createMessage(this.#target, thread, caption, this.#life.signal, file.url);
    return sid ? { messageId: sid } : {};
  }

  /**
   * One MMS file through the kit's bounded download, from Twilio's media hosts only (each redirect
   * hop checked), with the account's Basic credentials when its URL is on Twilio's API (they stay
   * on that origin: the kit drops them on the redirect to the short-lived URL).
   * A transport failure throws: the webhook answers an error and Twilio may deliver again.
   */
  async #fetch(media: { url: string; contentType: string }, context: GatewayContext): Promise<AttachmentRef> {
    const target = this.#target;
    const file = {
      id: media.url.split("/").pop() ?? media.url,
      url: media.url,
      kind: attachmentKindOf(media.contentType),
    };
    if (!target) return { refused: "disabled", kind: file.kind };
    const basic = Buffer.from(`${target.accountSid}:${target.authToken}`).toString("base64");
    // The Media SID (last path segment) names the file for good.
    return fetchPlatformFile(context, file, this.#options.media, {
      gateway: this.name,
      hosts: MEDIA_HOSTS,
      apiBaseUrl: target.apiBaseUrl,
      ...(takesCredentials(media.url, target.apiBaseUrl)
        ? { headers: { authorization: `Basic ${basic}` } }
        : {}),
      refusedWarning: "MMS media URL off Twilio's hosts refused",
    });
  }

  async #handle(delivery: TwilioDelivery, context: GatewayContext): Promise<void> {
    switch (delivery.kind) {
      case "status": {
        const failed = delivery.status === "failed" || delivery.status === "undelivered";
        // The session marks the piece dead, so the reply is not counted as delivered.
        const marked =
          failed &&
          delivery.to !== undefined &&
          (await context.undelivered?.(
            delivery.to,
            delivery.sid,
            `${delivery.status} (ErrorCode ${delivery.errorCode ?? "none"})`,
          ));
        context.logger[failed ? "warn" : "debug"](
          {
            sid: delivery.sid,
            status: delivery.status,
            errorCode: delivery.errorCode,
            to: delivery.to,
            reason: `status ${delivery.status}`,
            ...(failed ? { counted: marked ? "dead in the outbox" : "no sent piece matched" } : {}),
          },
          failed ? "reply not delivered" : "delivery status",
        );
        return;
      }
      case "opt-out": {
        // Twilio answers the keyword itself (and blocks sends after STOP); the agent never sees it.
        const key = `opt-out:${delivery.from}`;
        if (delivery.optOutType === "STOP")
          await context.state.set(key, { sid: delivery.sid, at: Date.now() });
        if (delivery.optOutType === "START") await context.state.delete(key);
        context.logger.info(
          {
            sid: delivery.sid,
            optOutType: delivery.optOutType,
            reason: `opt-out keyword ${delivery.optOutType}`,
          },
          "opt-out keyword recorded; Twilio answers it",
        );
        return;
      }
      case "message": {
        // Files are stored (or refused) before deliver, whose inbox record keeps the refs.
        const attachments: AttachmentRef[] = [];
        for (const m of delivery.media ?? []) attachments.push(await this.#fetch(m, context));
        const result = await context.deliver({
          ...(attachments.length > 0 ? { attachments } : {}),
          dedupKey: delivery.sid,
          thread: delivery.from,
          text: delivery.body,
          author: { id: delivery.from },
          chat: { type: "direct", id: delivery.from },
          meta: { messageSid: delivery.sid, to: delivery.to },
        });
        if (!result.accepted) context.logger.debug({ sid: delivery.sid }, "duplicate delivery acknowledged");
      }
    }
  }
}

export const createGateway: GatewayFactory<TwilioGatewayOptions> = (options) => new TwilioGateway(options);
