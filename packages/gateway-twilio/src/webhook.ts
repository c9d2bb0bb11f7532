// Twilio's messaging webhook: verify a form delivery, then read it into what the gateway acts on.
// Parameters: https://www.twilio.com/docs/messaging/guides/webhook-request ; signature:
// https://www.twilio.com/docs/usage/webhooks/webhooks-security ; opt-out keywords:
// https://help.twilio.com/articles/223134027 .
import { createHash } from "node:crypto";
import type { GatewayContext, WebhookRequest } from "@agentsvc/adapter-kit";
import { SIGNATURE_HEADER, type SignatureFailure, verifyTwilioSignature } from "./signature.js";

/** Message SIDs as Twilio issues them: SM (SMS) or MM (MMS) and 32 lower-case hex digits. */
const MESSAGE_SID = /^(SM|MM)[0-9a-f]{32}$/;
/**
 * How long a signature stays bound to the one parameter set it came with. Twilio's signed bytes
 * carry no timestamp, so this claim is what refuses a replay once the session's 7-day dedup
 * record of the MessageSid is pruned: it is kept much longer.
 */
export const SIGNATURE_CLAIM_MS = 400 * 24 * 60 * 60 * 1000;
/**
 * How long the very same request may come again as Twilio's retry. Twilio retries within minutes;
 * one day stays well inside the session's 7-day dedup window, so a retry that passes here is still
 * caught there, and a byte-identical copy sent later is a replay.
 */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type DeliveryFailure =
  | SignatureFailure
  | "duplicate_parameter"
  | "malformed_message_sid"
  | "replayed_signature";

/**
 * The signature over the decoded form, then what the signature cannot protect: the boundaries
 * between parameters (no separator in the signed string), so a repeated name, a MessageSid not of
 * Twilio's shape, or a signature already seen with other parameters is refused.
 */
export async function verifyDelivery(
  req: WebhookRequest,
  o: { authToken: string; url: string | undefined },
  context: Pick<GatewayContext, "claimOnce">,
): Promise<{ ok: true } | { ok: false; reason: DeliveryFailure }> {
  const params = formOf(req);
  const header = req.headers[SIGNATURE_HEADER];
  const verdict = verifyTwilioSignature(o.authToken, header, o.url ?? req.publicUrl, params);
  if (!verdict.ok) return verdict;
  if (new Set(params.map(([key]) => key)).size !== params.length)
    return { ok: false, reason: "duplicate_parameter" };
  const sid = params.find(([key]) => key === "MessageSid")?.[1];
  if (sid !== undefined && !MESSAGE_SID.test(sid)) return { ok: false, reason: "malformed_message_sid" };
  // Twilio retrying a request sends the same parameters: the same fingerprint passes again, within
  // the retry window counted from the first time the signature was seen.
  const fingerprint = createHash("sha256")
    .update(JSON.stringify(params.map((pair) => JSON.stringify(pair)).sort()))
    .digest("hex");
  const now = Date.now();
  // The header is there (the signature was verified); Node's parser already trimmed it.
  const claim = await context.claimOnce(`signature:${header}`, `${fingerprint} ${now}`, SIGNATURE_CLAIM_MS);
  if (claim.claimed) return { ok: true };
  // A claim written before the first-seen time was kept (no space) counts as outside the window.
  const [seenPrint, seenAt] = claim.value.split(" ");
  const retry = seenPrint === fingerprint && now - Number(seenAt) <= RETRY_WINDOW_MS;
  return retry ? { ok: true } : { ok: false, reason: "replayed_signature" };
}

/** The decoded form parameters, in the order sent (the signature covers decoded values). */
function formOf(req: WebhookRequest): [string, string][] {
  return [...new URLSearchParams(Buffer.from(req.rawBody).toString("utf8"))];
}

/** A file of an MMS: `MediaUrlN` and `MediaContentTypeN` (https://www.twilio.com/docs/messaging/guides/webhook-request). */
export interface TwilioMediaRef {
  url: string;
  contentType: string;
}

export type TwilioDelivery =
  | { kind: "message"; sid: string; from: string; to: string; body: string; media?: TwilioMediaRef[] }
  | { kind: "opt-out"; sid: string; from: string; optOutType: string }
  | { kind: "status"; sid: string; status: string; errorCode?: string; to?: string };

/** What one verified form means for this account: a delivery, or a reason to acknowledge it without a turn. */
export function parseDelivery(
  req: WebhookRequest,
  own: { accountSid: string; number: string },
  context: Pick<GatewayContext, "logger">,
): TwilioDelivery | { ignore: string } {
  const form = new Map(formOf(req));
  const sid = form.get("MessageSid");
  if (!sid)
    return { ignore: `not a message (voice or another callback; CallSid ${form.get("CallSid") ?? "none"})` };
  if (form.get("AccountSid") !== own.accountSid) {
    // Signed with this account's token yet naming another account: worth a look.
    context.logger.warn({ accountSid: form.get("AccountSid"), sid }, "message for another account; ignored");
    return { ignore: "message for another account" };
  }
  const status = form.get("MessageStatus");
  if (status) {
    const errorCode = form.get("ErrorCode");
    const to = form.get("To");
    return { kind: "status", sid, status, ...(errorCode ? { errorCode } : {}), ...(to ? { to } : {}) };
  }
  const from = form.get("From");
  if (!from) return { ignore: `message ${sid} without From` };
  // The bot never answers itself (a loop through another service or a forwarding rule).
  // (`from` is never empty here, so an unset own number, with a Messaging Service, matches nothing.)
  if (from === own.number) return { ignore: `message ${sid} from the bot's own number` };
  // Advanced Opt-Out marks STOP / START / HELP keywords; Twilio has already answered them.
  const optOutType = form.get("OptOutType");
  if (optOutType) return { kind: "opt-out", sid, from, optOutType };
  const body = form.get("Body") ?? "";
  // Twilio sends at most 10 files per message.
  const media: TwilioMediaRef[] = [];
  const count = Math.min(10, Number(form.get("NumMedia") ?? "0") || 0);
  for (let i = 0; i < count; i++) {
    const url = form.get(`MediaUrl${i}`);
    if (url) media.push({ url, contentType: form.get(`MediaContentType${i}`) ?? "" });
  }
  if (body.trim() === "" && media.length === 0) return { ignore: `message ${sid} without text or media` };
  return {
    kind: "message",
    sid,
    from,
    to: form.get("To") ?? "",
    body,
    ...(media.length > 0 ? { media } : {}),
  };
}
