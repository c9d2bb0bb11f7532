// A fake Twilio Programmable Messaging API: the Messages REST call a bot replies through (basic
// auth, form body, the 1600-character limit), and Twilio's side of the SMS webhook (form-encoded
// deliveries signed with X-Twilio-Signature over the URL and the sorted parameters).
import { createHmac, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerJson, callWebhook, expectAcknowledged, readBody, type WebhookAnswer } from "../http-util.js";
import { HttpFake } from "../http-fake.js";

export interface FakeTwilioOptions {
  accountSid: string;
  authToken: string;
  /** The bot's own number (the `To` of inbound messages). */
  number: string;
  /** Where deliveries are POSTed. */
  webhookUrl?: string;
  /** The URL Twilio signs when it differs from where it posts (a proxy's public URL). */
  signedUrl?: string;
}

export interface TwilioSent {
  sid: string;
  to: string;
  body: string;
  /** `MediaUrl` parameters of an MMS (the files Twilio fetches). */
  mediaUrls?: string[];
  from?: string;
  messagingServiceSid?: string;
}

export interface TwilioInbound {
  from: string;
  body: string;
  sid?: string;
  /** Extra or replacing parameters (e.g. a voice call's `CallSid`). */
  extra?: Record<string, string>;
}

/** Twilio's signature: base64 HMAC-SHA1 of the URL followed by each parameter's key and value, sorted by key. */
export function twilioSignature(authToken: string, url: string, params: [string, string][]): string {
  const sorted = [...params].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  let base = url;
  for (const [key, value] of sorted) base += key + value;
  return createHmac("sha1", authToken).update(base, "utf8").digest("base64");
}

/** A file attached to an inbound MMS: its Media URL and the type Twilio names in `MediaContentTypeN`. */
export interface TwilioMedia {
  url: string;
  contentType: string;
}

export class FakeTwilio extends HttpFake {
  readonly sent: TwilioSent[] = [];
  /** Downloads of each media file's short-lived URL (the bytes were served). */
  readonly mediaDownloads = new Map<string, number>();
  readonly #media = new Map<string, { bytes: Buffer; contentType: string }>();
  /** Every Messages call, failed ones included. */
  calls = 0;
  /**
   * Numbers that replied STOP: Twilio refuses sending to them with 400 and error 21610,
   * "Attempt to send to unsubscribed recipient" (https://www.twilio.com/docs/api/errors/21610).
   */
  readonly optedOut = new Set<string>();
  webhookUrl: string;
  signedUrl: string | undefined;
  readonly #options: FakeTwilioOptions;

  private constructor(options: FakeTwilioOptions) {
    super();
    this.#options = options;
    this.webhookUrl = options.webhookUrl ?? "";
    this.signedUrl = options.signedUrl;
  }

  static async start(options: FakeTwilioOptions): Promise<FakeTwilio> {
    const fake = new FakeTwilio(options);
    await fake.listen();
    return fake;
  }

  /** The form parameters of an inbound SMS, in the order Twilio sends them. */
  smsParams(message: TwilioInbound): [string, string][] {
    const sid = message.sid ?? `SM${randomBytes(16).toString("hex")}`;
    const params: Record<string, string> = {
      ToCountry: "US",
      SmsMessageSid: sid,
      NumMedia: "0",
      SmsSid: sid,
      SmsStatus: "received",
      Body: message.body,
      To: this.#options.number,
      NumSegments: "1",
      MessageSid: sid,
      AccountSid: this.#options.accountSid,
      From: message.from,
      ApiVersion: "2010-04-01",
      ...message.extra,
    };
    return Object.entries(params);
  }

  /** Delivers an SMS, signed as Twilio signs it; resolves with the webhook's answer. */
  deliverSms(message: TwilioInbound): Promise<WebhookAnswer> {
    return this.deliver(this.smsParams(message));
  }

  /**
   * Holds a user's MMS file. As Twilio documents it
   * (https://www.twilio.com/docs/messaging/api/media-resource, and "Protect Media Access with HTTP
   * Basic Authentication"): the Media URL on api.twilio.com needs the Account SID and Auth Token
   * (HTTP Basic) and redirects to a short-lived URL (mms.twiliocdn.com at Twilio, `/cdn/` here)
   * that serves the bytes without credentials.
   */
  hostMedia(bytes: Buffer, contentType: string): TwilioMedia {
    const sid = `ME${randomBytes(16).toString("hex")}`;
    this.#media.set(sid, { bytes, contentType });
    const message = `MM${randomBytes(16).toString("hex")}`;
    return {
      url: `${this.url}/2010-04-01/Accounts/${this.#options.accountSid}/Messages/${message}/Media/${sid}`,
      contentType,
    };
  }

  /** Delivers an MMS (`NumMedia`, `MediaUrlN`, `MediaContentTypeN`), signed; resolves with the webhook's answer. */
  deliverMms(message: TwilioInbound & { media: TwilioMedia[] }): Promise<WebhookAnswer> {
    const extra: Record<string, string> = { NumMedia: String(message.media.length) };
    message.media.forEach((m, i) => {
      extra[`MediaContentType${i}`] = m.contentType;
      extra[`MediaUrl${i}`] = m.url;
    });
    return this.deliver(this.smsParams({ ...message, extra: { ...extra, ...message.extra } }));
  }

  /** Posts form parameters signed over `signedUrl ?? webhookUrl`, or with the headers given. */
  deliver(params: [string, string][], headers?: Record<string, string>): Promise<WebhookAnswer> {
    const body = new URLSearchParams(params).toString();
    return callWebhook(
      this.webhookUrl,
      body,
      headers ?? {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": this.sign(params),
      },
    );
  }

  async deliverAcknowledged(message: TwilioInbound): Promise<WebhookAnswer> {
    return expectAcknowledged(await this.deliverSms(message), "fake twilio delivery");
  }

  sign(params: [string, string][], authToken = this.#options.authToken): string {
    return twilioSignature(authToken, this.signedUrl ?? this.webhookUrl, params);
  }

  protected async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const { accountSid, authToken } = this.#options;
    const path = new URL(req.url ?? "/", "http://x").pathname;
    // The account resource (https://www.twilio.com/docs/iam/api/account#fetch-an-account-resource): a
    // cheap authenticated read, what `agentsvc doctor` asks.
    if (req.method === "GET" && path === `/2010-04-01/Accounts/${accountSid}.json`) {
      const basic = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
      if (req.headers.authorization !== basic) return twilioError(res, 401, 20003, "Authenticate");
      return answerJson(res, 200, {
        sid: accountSid,
        friendly_name: "agentsvc test",
        status: "active",
        type: "Full",
      });
    }
    const media = /\/Media\/(ME[0-9a-f]+)$/.exec(path);
    if (req.method === "GET" && media && this.#media.has(media[1] as string)) {
      const basic = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
      if (req.headers.authorization !== basic) return twilioError(res, 401, 20003, "Authenticate");
      res.writeHead(307, { location: `${this.url}/cdn/${media[1]}` }).end();
      return;
    }
    const cdn = /^\/cdn\/(ME[0-9a-f]+)$/.exec(path);
    if (req.method === "GET" && cdn) {
      const m = this.#media.get(cdn[1] as string);
      if (!m) return twilioError(res, 404, 20404, "The requested resource was not found");
      this.mediaDownloads.set(cdn[1] as string, (this.mediaDownloads.get(cdn[1] as string) ?? 0) + 1);
      res.writeHead(200, { "content-type": m.contentType, "content-length": m.bytes.length }).end(m.bytes);
      return;
    }
    if (req.method !== "POST" || path !== `/2010-04-01/Accounts/${accountSid}/Messages.json`)
      return twilioError(res, 404, 20404, "The requested resource was not found");
    this.calls += 1;
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
    if (req.headers.authorization !== expected) return twilioError(res, 401, 20003, "Authenticate");
    if (
      this.failures.answer(res, (status) =>
        errorBody(status, status === 429 ? 20429 : 20500, `injected ${status}`),
      )
    )
      return;
    const form = new URLSearchParams(raw.toString("utf8"));
    const to = form.get("To");
    const body = form.get("Body") ?? "";
    const from = form.get("From") ?? undefined;
    const messagingServiceSid = form.get("MessagingServiceSid") ?? undefined;
    if (!to) return twilioError(res, 400, 21604, "A 'To' phone number is required.");
    if (this.optedOut.has(to))
      return twilioError(res, 400, 21610, "Attempt to send to unsubscribed recipient");
    if (!from && !messagingServiceSid)
      return twilioError(res, 400, 21603, "A 'From' phone number is required.");
    const mediaUrls = form.getAll("MediaUrl");
    // Body or MediaUrl is required (https://www.twilio.com/docs/errors/21602); at most 10 files.
    if (body === "" && mediaUrls.length === 0)
      return twilioError(res, 400, 21602, "Message body is required.");
    if (mediaUrls.length > 10)
      return twilioError(res, 400, 21623, "Number of media files exceeds allowed limit.");
    if ([...body].length > 1600)
      return twilioError(res, 400, 21617, "The concatenated message body exceeds the 1600 character limit.");
    const sid = `SM${randomBytes(16).toString("hex")}`;
    this.sent.push({
      sid,
      to,
      body,
      ...(mediaUrls.length > 0 ? { mediaUrls } : {}),
      ...(from ? { from } : {}),
      ...(messagingServiceSid ? { messagingServiceSid } : {}),
    });
    answerJson(res, 201, { sid, account_sid: accountSid, to, from: from ?? null, body, status: "queued" });
  }
}

function errorBody(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

function twilioError(res: ServerResponse, status: number, code: number, message: string): void {
  answerJson(res, status, errorBody(status, code, message));
}
