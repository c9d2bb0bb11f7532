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
import { createMessage, type MessagesTarget } from "./messages-client.js";
import { SIGNATURE_HEADER, verifyTwilioSignature } from "./signature.js";

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
    const verdict = verifyTwilioSignature(target.authToken, req.headers[SIGNATURE_HEADER], url, params);
    if (!verdict.ok) {
      context.logger.warn({ reason: verdict.reason, url }, "webhook signature rejected");
      return plainResponse(401);
    }
    const form = new Map(params);
    const sid = form.get("MessageSid");
    const from = form.get("From");
    if (!sid || !from) {
      context.logger.debug(
        { callSid: form.get("CallSid") },
        "not a message (voice or another callback); ignored",
      );
      return twiml();
    }
    const body = form.get("Body") ?? "";
    if (body.trim() === "") {
      context.logger.debug(
        { sid, numMedia: form.get("NumMedia") },
        "message without text (media is not downloaded); ignored",
      );
      return twiml();
    }
    if (form.get("AccountSid") !== target.accountSid) {
      context.logger.warn({ accountSid: form.get("AccountSid") }, "message for another account; ignored");
      return twiml();
    }
    try {
      const result = await context.deliver({
        dedupKey: sid,
        thread: from,
        text: body,
        author: { id: from },
        meta: { messageSid: sid, to: form.get("To") ?? "" },
      });
      if (!result.accepted) context.logger.debug({ sid }, "duplicate delivery acknowledged");
    } catch (err) {
      context.logger.error({ err, sid }, "could not record an SMS; answering 500");
      return plainResponse(500);
    }
    return twiml();
  }
}

export function createTwilioGateway(options: TwilioGatewayOptions): TwilioGateway {
  return new TwilioGateway(options);
}
