// The `whatsapp` push-style gateway (WhatsApp Cloud API). Inbound: Meta's webhook at
// /webhooks/whatsapp (GET subscription handshake, POST signed notifications). Outbound: the Graph
// messages route. Delivery guarantees (dedup, durable inbox, outbox retries) live in the session.
import type { DecisionKind } from "@agentsvc/agent-core";
import type {
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  InteractionRequest,
  SendOptions,
  SendResult,
  WebhookRequest,
  WebhookResponse,
  WebhookRoute,
} from "@agentsvc/session-core";
import { approvalInteractive, labelOf, parseOptionId } from "./approval-message.js";
import { toWhatsApp } from "./format.js";
import { type GraphTarget, postMessage } from "./api.js";
import { readNotification, type WhatsAppEvent } from "./inbound.js";
import { addressOf } from "./thread.js";
import {
  readSecrets,
  SIGNATURE_HEADER,
  safeEqualText,
  verifyHubSignature,
  plainResponse,
} from "@agentsvc/webhook-kit";

export const DEFAULT_API_BASE_URL = "https://graph.facebook.com";
export const DEFAULT_API_VERSION = "v21.0";
export const TEXT_LIMIT = 4096;
/** Error code of a message sent outside the customer-service window (Cloud API error codes). */
const OUTSIDE_WINDOW = 131047;
const WINDOW_MS = 24 * 60 * 60 * 1000;

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
  /** Registry key; push-style gateways always register as `whatsapp`. */
  name?: string;
  /** Environment handed by the server; `context.env` wins where it has the variable. */
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
  readonly messageLimit = TEXT_LIMIT;
  readonly webhooks: readonly WebhookRoute[];
  readonly #options: WhatsappGatewayOptions;
  #context: GatewayContext | undefined;
  #secrets: Secrets | undefined;
  #abort = new AbortController();

  constructor(options: WhatsappGatewayOptions) {
    this.#options = options;
    this.webhooks = [
      { method: "GET", handle: (req) => this.#handshake(req) },
      { method: "POST", handle: (req) => this.#notification(req) },
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
      o.env,
    );
    this.#secrets = {
      ...secrets,
      apiBaseUrl: o.apiBaseUrl ?? DEFAULT_API_BASE_URL,
      apiVersion: o.apiVersion ?? DEFAULT_API_VERSION,
    };
    this.#abort = new AbortController();
    this.#context = context;
  }

  async stop(): Promise<void> {
    this.#context = undefined;
    this.#abort.abort();
  }

  /** Markdown -> WhatsApp markup, before the session cuts the reply into pieces. */
  format(markdown: string): string {
    return toWhatsApp(markdown);
  }

  async send(thread: string, body: string, _options: SendOptions): Promise<SendResult | undefined> {
    const messageId = await postMessage(
      this.#target(),
      { ...addressOf(thread), type: "text", text: { body, preview_url: false } },
      this.#abort.signal,
    );
    return messageId ? { messageId } : {};
  }

  async requestDecision(request: InteractionRequest, _options: SendOptions): Promise<SendResult | undefined> {
    // A press cannot carry replacement arguments, so `edit` gets no button.
    const pressable = request.allowedDecisions.filter((d) => d !== "edit");
    const options = (pressable.length > 0 ? pressable : request.allowedDecisions).map((decision) => ({
      decision,
      label: labelOf(decision),
    }));
    const messageId = await postMessage(
      this.#target(),
      {
        ...addressOf(request.thread),
        type: "interactive",
        interactive: approvalInteractive(request.requestId, request.prompt, options),
      },
      this.#abort.signal,
    );
    return messageId ? { messageId } : {};
  }

  #target(): GraphTarget {
    if (!this.#secrets || !this.#context) throw new Error("whatsapp gateway is not started");
    return this.#secrets;
  }

  /** GET: echo `hub.challenge` only for mode `subscribe` with the right verify token. */
  async #handshake(req: WebhookRequest): Promise<WebhookResponse> {
    const context = this.#context;
    const secrets = this.#secrets;
    const mode = req.query.get("hub.mode");
    const token = req.query.get("hub.verify_token") ?? "";
    const challenge = req.query.get("hub.challenge") ?? "";
    if (
      !context ||
      !secrets ||
      secrets.verifyToken === "" ||
      mode !== "subscribe" ||
      !safeEqualText(token, secrets.verifyToken)
    ) {
      context?.logger.warn({ mode }, "webhook handshake refused");
      return plainResponse(403);
    }
    context.logger.info("webhook subscription verified");
    return plainResponse(200, challenge);
  }

  /** POST: verify over the raw bytes, then parse, then record each message before answering 200. */
  async #notification(req: WebhookRequest): Promise<WebhookResponse> {
    const context = this.#context;
    const secrets = this.#secrets;
    if (!context || !secrets) return plainResponse(503);
    const verdict = verifyHubSignature(secrets.appSecret, req.headers[SIGNATURE_HEADER], req.rawBody);
    if (!verdict.ok) {
      context.logger.warn(
        { reason: verdict.reason, bytes: req.rawBody.byteLength },
        "webhook signature rejected",
      );
      return plainResponse(401);
    }
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(req.rawBody).toString("utf8"));
    } catch {
      context.logger.warn("signed webhook body is not JSON; ignored");
      return plainResponse(400);
    }
    try {
      for (const event of readNotification(payload, secrets.phoneNumberId))
        await this.#handle(event, context);
    } catch (err) {
      // Not recorded: answer an error so Meta delivers it again (dedup makes the replay safe).
      context.logger.error({ err }, "could not record a webhook message; Meta will retry");
      return plainResponse(500);
    }
    return plainResponse(200);
  }

  async #handle(event: WhatsAppEvent, context: GatewayContext): Promise<void> {
    if (event.kind === "skipped") {
      context.logger.debug({ id: event.id, reason: event.reason }, "webhook event ignored");
      return;
    }
    if (event.kind === "failed") {
      const [error] = event.errors;
      const detail =
        error?.code === OUTSIDE_WINDOW
          ? await this.#reopen(event.recipient, context)
          : (error?.title ?? "no error given");
      context.logger.warn(
        { id: event.id, recipient: event.recipient, code: error?.code, title: error?.title, detail },
        "reply not delivered",
      );
      return;
    }
    if (event.kind === "choice") {
      const chosen = parseOptionId(event.optionId);
      if (chosen) {
        const result = await context.decide(
          chosen.requestId,
          { decision: chosen.decision as DecisionKind },
          event.from,
        );
        if (!result.ok)
          context.logger.info({ requestId: chosen.requestId, code: result.code }, "decision not applied");
        return;
      }
      // A press on something this gateway did not render (a template button): treat as text.
      event = { kind: "message", id: event.id, from: event.from, text: event.title };
    }
    const result = await context.deliver({
      dedupKey: event.id,
      thread: event.from,
      text: event.text,
      author: { id: event.from, ...(event.name ? { displayName: event.name } : {}) },
      meta: { messageId: event.id },
    });
    if (!result.accepted) context.logger.debug({ id: event.id }, "duplicate delivery acknowledged");
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
        this.#abort.signal,
      );
      return `${closed}; sent template ${name} to reopen the conversation (the reply itself is not re-sent)`;
    } catch (err) {
      context.logger.error({ err, template: name }, "could not send the re-engagement template");
      return `${closed}; template ${name} could not be sent`;
    }
  }
}

export function createWhatsappGateway(options: WhatsappGatewayOptions): WhatsappGateway {
  return new WhatsappGateway(options);
}
