// The `twilio` push-style gateway (Twilio Programmable Messaging, SMS). Inbound: Twilio's
// form-encoded webhook at /webhooks/twilio, answered with an empty TwiML <Response>. Outbound: the
// Messages REST call. SMS has no threads and no buttons: one conversation per sender number, and
// approvals go as the session's plain-text prompt (a newer request to a number replaces the open one).
import {
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type GatewayFactory,
  readSecrets,
  type SendOptions,
  type SendResult,
  type WebhookResponse,
  type WebhookRoute,
} from "@agentsvc/session-core";
import { webhookRoute } from "@agentsvc/webhook-kit";
import { createMessage, type MessagesTarget } from "./api.js";
import { toPlainText } from "./format.js";
import { parseDelivery, type TwilioDelivery, verifyDelivery } from "./webhook.js";

export const DEFAULT_API_BASE_URL = "https://api.twilio.com";
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
  readonly messageLimit = MESSAGE_LIMIT;
  readonly webhooks: readonly WebhookRoute[];
  readonly #options: TwilioGatewayOptions;
  #context: GatewayContext | undefined;
  #target: MessagesTarget | undefined;
  #abort = new AbortController();

  constructor(options: TwilioGatewayOptions) {
    this.#options = options;
    this.webhooks = [
      webhookRoute<TwilioDelivery>({
        context: () => (this.#target ? this.#context : undefined),
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
        const result = await context.deliver({
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
