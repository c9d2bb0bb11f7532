// The `whatsapp` push-style gateway (WhatsApp Cloud API). Inbound: Meta's webhook at
// /webhooks/whatsapp (GET subscription handshake, POST signed notifications) through the kit's
// webhookRoute. Outbound: the Graph messages route. Delivery guarantees (dedup, durable inbox,
// outbox retries) live in the session.
import {
  type AttachmentKind,
  type AttachmentRef,
  decisionLabel,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type GatewayFactory,
  type InteractionRequest,
  type OutboundFile,
  pressableDecisions,
  readSecrets,
  type SendOptions,
  type SendResult,
  type WebhookRoute,
  GatewayLifetime,
} from "@agentsvc/adapter-kit";
import { fetchPlatformFile, plainResponse, webhookRoute } from "@agentsvc/webhook-kit";
import { type GraphTarget, mediaUrl, postMessage, uploadMedia } from "./api.js";
import { approvalInteractive, decisionOf } from "./approval-message.js";
import { whatsAppPieces } from "./format.js";
import type { FailedStatus, MediaRef, WhatsAppEvent } from "./inbound.js";
import { templateMessage, templateOf, templateParameters } from "./template.js";
import { addressOf } from "./thread.js";
import { parseNotification, verifyHandshake, verifyNotification } from "./webhook.js";
import { DEFAULT_API_BASE_URL, DEFAULT_API_VERSION } from "./schema.js";

/** Cloud API text limit (`text.body`). */
export const MESSAGE_LIMIT = 4096;
/** Error code of a message sent outside the customer-service window (Cloud API error codes). */
const OUTSIDE_WINDOW = 131047;
const WINDOW_MS = 24 * 60 * 60 * 1000;
/** A `failed` status with these (throughput, pair rate limit) is passing: the piece is sent again. */
const THROUGHPUT_CODES = new Set([130429, 131056]);
const THROUGHPUT_WAIT_MS = 1_000;
/** Where Meta serves media downloads (the URL GET /<media id> answers). */
const MEDIA_HOSTS = ["lookaside.fbsbx.com"];

export interface WhatsappGatewayOptions {
  accessTokenEnvVar: string;
  phoneNumberIdEnvVar: string;
  appSecretEnvVar: string;
  verifyTokenEnvVar: string;
  /** Graph API version. Default `v21.0`. */
  apiVersion?: string;
  /** Graph base URL. Default `https://graph.facebook.com` (a fake in tests). */
  apiBaseUrl?: string;
  /**
   * Approved message template sent when a reply fails outside the 24-hour customer-service window
   * (error 131047): only a template may open a conversation again. Unset: the failure is logged.
   */
  templateName?: string;
  /** The template's language code. Default `en_US`. */
  templateLanguage?: string;
  /**
   * The entry's `media` block (config-schema's `mediaPolicyOf`): present, media messages are taken
   * in with their file (downloaded with the token, kinds and size as it says); absent, the caption
   * is the message and an uncaptioned media message is ignored.
   */
  media?: { types: readonly AttachmentKind[]; maxBytes: number };
  /** Registry key; push-style gateways always register as `whatsapp`. */
  name?: string;
  /** Environment handed by the server; it wins over `context.env` where it has the variable. */
  env?: Readonly<Record<string, string | undefined>>;
}

interface Secrets extends GraphTarget {
  appSecret: string;
  verifyToken: string;
}

export class WhatsappGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "whatsapp";
  readonly name = "whatsapp";
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: true };
  readonly messageLimit = MESSAGE_LIMIT;
  readonly webhooks: readonly WebhookRoute[];
  readonly #options: WhatsappGatewayOptions;
  #secrets: Secrets | undefined;
  readonly #life = new GatewayLifetime();

  constructor(options: WhatsappGatewayOptions) {
    this.#options = options;
    const context = () => (this.#secrets ? this.#life.context : undefined);
    this.webhooks = [
      webhookRoute<string>({
        method: "GET",
        context,
        verify: (req) => verifyHandshake(req, this.#secrets?.verifyToken ?? ""),
        parse: (req) => req.query.get("hub.challenge") ?? "",
        handle: async (challenge, _req, ctx) => {
          ctx.logger.info("webhook subscription verified");
          return plainResponse(200, challenge);
        },
        // Meta's handshake expects 403 for a wrong token.
        refuse: (r) => plainResponse(r.status === 401 ? 403 : r.status),
      }),
      webhookRoute<WhatsAppEvent[]>({
        context,
        verify: (req) => verifyNotification(req, this.#secrets?.appSecret ?? ""),
        parse: (req) =>
          parseNotification(req, this.#secrets?.phoneNumberId ?? "", this.#options.media !== undefined),
        handle: async (events, _req, ctx) => {
          for (const event of events) await this.#handle(event, ctx);
        },
      }),
    ];
  }

  async start(context: GatewayContext): Promise<void> {
    const o = this.#options;
    const secrets = readSecrets(
      context,
      {
        appSecret: o.appSecretEnvVar,
        verifyToken: o.verifyTokenEnvVar,
        accessToken: o.accessTokenEnvVar,
        phoneNumberId: o.phoneNumberIdEnvVar,
      },
      {
        ...(o.env ? { env: o.env } : {}),
        gateway: "whatsapp",
        describe: {
          appSecret: "the app secret (App settings > Basic)",
          verifyToken: "the verify token typed in Meta's webhook configuration",
          accessToken: "a system-user access token with whatsapp_business_messaging",
          phoneNumberId: "the phone number id (WhatsApp > API Setup)",
        },
      },
    );
    this.#secrets = {
      ...secrets,
      accessTokenEnvVar: o.accessTokenEnvVar,
      apiBaseUrl: o.apiBaseUrl ?? DEFAULT_API_BASE_URL,
      apiVersion: o.apiVersion ?? DEFAULT_API_VERSION,
    };
    this.#life.begin(context);
  }

  async stop(): Promise<void> {
    this.#life.end();
  }

  /** Markdown -> WhatsApp markup, before the session cuts the reply into pieces. */
  /**
   * The reply's Markdown (no `format`: the session hands it over as written) cut on its tree into
   * WhatsApp markup pieces of at most MESSAGE_LIMIT characters, each rendered on its own.
   */
  chunk(markdown: string): string[] {
    return whatsAppPieces(markdown, MESSAGE_LIMIT);
  }

  async send(thread: string, body: string, options: SendOptions): Promise<SendResult | undefined> {
    // A schedule with an approved template: the reply goes in it (allowed outside the 24-hour window).
    const template = templateOf(options.meta);
    if (template) {
      let last: string | undefined;
      for (const parameter of templateParameters(body)) {
        last = await postMessage(
          this.#target(),
          { ...addressOf(thread), ...templateMessage(template, parameter) },
          this.#life.signal,
        );
      }
      return last ? { messageId: last } : {};
    }
    const messageId = await postMessage(
      this.#target(),
      { ...addressOf(thread), type: "text", text: { body, preview_url: false } },
      this.#life.signal,
    );
    return messageId ? { messageId } : {};
  }

  /**
   * One file of a reply: uploaded to Graph (a media id), then sent as an image (JPEG, PNG), audio,
   * video (MP4, 3GPP) or document message with the caption (audio takes none: one with a caption
   * goes as a document, so the words are not lost). A retry uploads again.
   */
  async sendFile(thread: string, file: OutboundFile, _options: SendOptions): Promise<SendResult | undefined> {
    const target = this.#target();
    const bytes = await file.bytes();
    const id = await uploadMedia(
      target,
      { bytes, contentType: file.contentType, name: file.name },
      this.#life.signal,
    );
    const type = messageTypeOf(file.contentType, file.caption !== undefined);
    const caption = file.caption ? { caption: [...file.caption].slice(0, 1024).join("") } : {};
    const media =
      type === "document"
        ? { id, filename: file.name, ...caption }
        : type === "audio"
          ? { id }
          : { id, ...caption };
    const messageId = await postMessage(
      target,
      { ...addressOf(thread), type, [type]: media },
      this.#life.signal,
    );
    return messageId ? { messageId } : {};
  }

  async requestDecision(request: InteractionRequest, _options: SendOptions): Promise<SendResult | undefined> {
    const pressable = pressableDecisions(request.allowedDecisions);
    const options = (pressable.length > 0 ? pressable : request.allowedDecisions).map((decision) => ({
      decision,
      label: decisionLabel(decision),
    }));
    const messageId = await postMessage(
      this.#target(),
      {
        ...addressOf(request.thread),
        type: "interactive",
        interactive: approvalInteractive(request.requestId, request.prompt, options),
      },
      this.#life.signal,
    );
    return messageId ? { messageId } : {};
  }

  #target(): GraphTarget {
    if (!this.#secrets || !this.#life.context) throw new Error("whatsapp gateway is not started");
    return this.#secrets;
  }

  async #handle(event: WhatsAppEvent, context: GatewayContext): Promise<void> {
    if (event.kind === "skipped") {
      context.logger.debug({ id: event.id, reason: event.reason }, "webhook event ignored");
      return;
    }
    if (event.kind === "failed") return this.#failed(event, context);
    if (event.kind === "choice") {
      const chosen = decisionOf(event.optionId);
      if (chosen) {
        const result = await context.decide(chosen.requestId, { decision: chosen.decision }, event.from);
        if (!result.ok)
          context.logger.info({ requestId: chosen.requestId, code: result.code }, "decision not applied");
        return;
      }
      // A press on something this gateway did not render (a template button): treat as text.
      event = { kind: "message", id: event.id, from: event.from, text: event.title };
    }
    // The file is stored (or its refusal recorded) before deliver, whose inbox record keeps the ref.
    const attachments =
      event.kind === "message" && event.media ? [await this.#fetch(event.media, context)] : [];
    const result = await context.deliver({
      ...(attachments.length > 0 ? { attachments } : {}),
      dedupKey: event.id,
      thread: event.from,
      text: event.text,
      author: { id: event.from, ...(event.name ? { displayName: event.name } : {}) },
      chat: { type: "direct", id: event.from },
      meta: { messageId: event.id },
    });
    if (!result.accepted) context.logger.debug({ id: event.id }, "duplicate delivery acknowledged");
  }

  /**
   * A media message's file: its URL from Graph (valid 5 minutes, so asked for now), then the bytes
   * with the token through the kit's bounded download, from Meta's media host only. A transport
   * failure throws (the webhook answers an error and Meta delivers again); a URL off Meta's hosts
   * is refused for good.
   */
  async #fetch(media: MediaRef, context: GatewayContext): Promise<AttachmentRef> {
    const named = media.name ? { name: media.name } : {};
    const policy = this.#options.media;
    if (!policy || !context.blobs) return { refused: "disabled", kind: media.kind, ...named };
    const target = this.#target();
    const found = await mediaUrl(target, media.id, this.#life.signal);
    const file = { id: media.id, url: found.url, kind: media.kind, ...named };
    return fetchPlatformFile(
      context,
      found.file_size !== undefined ? { ...file, size: found.file_size } : file,
      policy,
      {
        gateway: this.name,
        hosts: MEDIA_HOSTS,
        apiBaseUrl: target.apiBaseUrl,
        headers: { authorization: `Bearer ${target.accessToken}` },
        refusedWarning: "media URL off Meta's hosts refused",
      },
    );
  }

  /** A reply Meta could not deliver: a warning with the code; outside the window, the template. */
  async #failed(event: FailedStatus, context: GatewayContext): Promise<void> {
    const [error] = event.errors;
    const detail =
      error?.code === OUTSIDE_WINDOW
        ? await this.#reopen(event.recipient, context)
        : (error?.details ?? error?.title ?? "no error given");
    // The session marks the piece dead, so the reply is not counted as delivered; a throughput
    // failure is passing: the piece is sent again after a wait, within the outbox's attempt bound.
    const retry = error?.code !== undefined && THROUGHPUT_CODES.has(error.code);
    const marked =
      event.recipient !== undefined &&
      (await context.undelivered?.(
        event.recipient,
        event.id,
        `${error?.code ?? "?"} ${error?.title ?? ""}: ${detail}`,
        retry ? { retryAfterMs: THROUGHPUT_WAIT_MS } : undefined,
      ));
    context.logger.warn(
      {
        id: event.id,
        recipient: event.recipient,
        code: error?.code,
        title: error?.title,
        detail,
        counted: !marked ? "no sent piece matched" : retry ? "pending again (retried)" : "dead in the outbox",
      },
      "reply not delivered",
    );
  }

  /** Outside the 24-hour window: the configured template, once per user per window; what happened, in words. */
  async #reopen(recipient: string | undefined, context: GatewayContext): Promise<string> {
    const name = this.#options.templateName;
    const closed = "outside the 24-hour window (the user has not written for 24 hours)";
    if (!name) return `${closed} and no templateName is configured: the reply was not delivered`;
    if (!recipient) return `${closed}; the status names no recipient, so no template was sent`;
    const first = await context.claimOnce(`template:${recipient}`, String(Date.now()), WINDOW_MS);
    if (!first.claimed) return `${closed}; template ${name} was already sent in this window`;
    try {
      const language = this.#options.templateLanguage ?? "en_US";
      await postMessage(
        this.#target(),
        { ...addressOf(recipient), type: "template", template: { name, language: { code: language } } },
        this.#life.signal,
      );
      return `${closed}; sent template ${name} to reopen the conversation (the reply itself is not re-sent)`;
    } catch (err) {
      context.logger.error({ err, template: name }, "could not send the re-engagement template");
      return `${closed}; template ${name} could not be sent`;
    }
  }
}

/** The message type a file goes as (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types). */
function messageTypeOf(contentType: string, captioned: boolean): "image" | "audio" | "video" | "document" {
  if (contentType === "image/jpeg" || contentType === "image/png") return "image";
  if (/^video\/(mp4|3gpp)$/.test(contentType)) return "video";
  if (/^audio\/(aac|amr|mpeg|mp4|ogg)$/.test(contentType) && !captioned) return "audio";
  return "document";
}

export const createGateway: GatewayFactory<WhatsappGatewayOptions> = (options) =>
  new WhatsappGateway(options);
