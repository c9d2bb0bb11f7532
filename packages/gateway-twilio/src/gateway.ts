// The `twilio` push-style gateway (Twilio Programmable Messaging, SMS). Inbound: Twilio's
// form-encoded webhook at /webhooks/twilio, answered with an empty TwiML <Response>. Outbound: the
// Messages REST call. SMS has no threads and no buttons: one conversation per sender number, and
// approvals go as the session's plain-text prompt (a newer request to a number replaces the open one).
import type {
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  SendOptions,
  SendResult,
  WebhookRequest,
  WebhookResponse,
  WebhookRoute,
} from "@agentsvc/session-core";
import { readSecrets, plainResponse } from "@agentsvc/webhook-kit";
import { toPlainText } from "./format.js";
import { createMessage, type MessagesTarget } from "./api.js";
import { readDelivery, SIGNATURE_HEADER, type TwilioDelivery, verifyDelivery } from "./webhook.js";

export const DEFAULT_API_BASE_URL = "https://api.twilio.com";
export const SMS_LIMIT = 1600;
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
  name?: string;
  env?: Readonly<Record<string, string | undefined>>;
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
  readonly messageLimit = SMS_LIMIT;
  readonly webhooks: readonly WebhookRoute[];
  readonly #options: TwilioGatewayOptions;
  #context: GatewayContext | undefined;
  #target: MessagesTarget | undefined;
  #abort = new AbortController();

  constructor(options: TwilioGatewayOptions) {
    this.#options = options;
    this.webhooks = [{ method: "POST", handle: (req) => this.#inbound(req) }];
  }

  async start(context: GatewayContext): Promise<void> {
    const o = this.#options;
    const secrets = readSecrets(
      context,
      { accountSid: o.accountSidEnvVar, authToken: o.authTokenEnvVar, from: o.fromEnvVar },
      o.env,
    );
    this.#target = {
      apiBaseUrl: o.apiBaseUrl ?? DEFAULT_API_BASE_URL,
      ...secrets,
      ...(o.messagingServiceSid ? { messagingServiceSid: o.messagingServiceSid } : {}),
    };
    this.#abort = new AbortController();
    this.#context = context;
  }

  async stop(): Promise<void> {
    this.#context = undefined;
    this.#abort.abort();
  }

  /** Markdown -> plain text: an SMS shows markup characters literally. */
  format(markdown: string): string {
    return toPlainText(markdown);
  }

  async send(thread: string, text: string, _options: SendOptions): Promise<SendResult | undefined> {
    if (!this.#target || !this.#context) throw new Error("twilio gateway is not started");
    const sid = await createMessage(this.#target, thread, text, this.#abort.signal);
    return sid ? { messageId: sid } : {};
  }

  async #inbound(req: WebhookRequest): Promise<WebhookResponse> {
    const context = this.#context;
    const target = this.#target;
    if (!context || !target) return plainResponse(503);
    // The signature covers the decoded parameters, so the form is decoded first; nothing is acted on before the check.
    const params = [...new URLSearchParams(Buffer.from(req.rawBody).toString("utf8"))];
    const url = this.#options.publicUrl ?? req.publicUrl;
    const verdict = await verifyDelivery(
      { authToken: target.authToken, url, header: req.headers[SIGNATURE_HEADER], params },
      context,
    );
    if (!verdict.ok) {
      context.logger.warn({ reason: verdict.reason, url }, "webhook signature rejected");
      return plainResponse(401);
    }
    const delivery = readDelivery(new Map(params), target.accountSid);
    try {
      await this.#handle(delivery, context);
    } catch (err) {
      context.logger.error({ err }, "could not record an SMS; answering 500");
      return plainResponse(500);
    }
    return twiml();
  }

  async #handle(delivery: TwilioDelivery, context: GatewayContext): Promise<void> {
    switch (delivery.kind) {
      case "ignored":
        context.logger[delivery.level](delivery.detail ?? {}, delivery.reason);
        return;
      case "status": {
        const failed = delivery.status === "failed" || delivery.status === "undelivered";
        context.logger[failed ? "warn" : "debug"](
          { sid: delivery.sid, status: delivery.status, errorCode: delivery.errorCode, to: delivery.to },
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
          { sid: delivery.sid, optOutType: delivery.optOutType },
          "opt-out keyword recorded; Twilio answers it",
        );
        return;
      }
      case "message": {
        const result = await context.deliver({
          dedupKey: delivery.sid,
          thread: delivery.from,
          text: delivery.body,
          author: { id: delivery.from },
          meta: { messageSid: delivery.sid, to: delivery.to },
        });
        if (!result.accepted) context.logger.debug({ sid: delivery.sid }, "duplicate delivery acknowledged");
      }
    }
  }
}

export function createTwilioGateway(options: TwilioGatewayOptions): TwilioGateway {
  return new TwilioGateway(options);
}
