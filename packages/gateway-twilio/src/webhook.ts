// Twilio's messaging webhook: verify a form delivery, then read it into what the gateway acts on.
// Parameters: https://www.twilio.com/docs/messaging/guides/webhook-request ; signature:
// https://www.twilio.com/docs/usage/webhooks/webhooks-security ; opt-out keywords:
// https://help.twilio.com/articles/223134027 .
import { createHash } from "node:crypto";
import type { GatewayContext } from "@agentsvc/session-core";
import { SIGNATURE_HEADER, type SignatureFailure, verifyTwilioSignature } from "./signature.js";

/** Message SIDs as Twilio issues them: SM (SMS) or MM (MMS) and 32 lower-case hex digits. */
const MESSAGE_SID = /^(SM|MM)[0-9a-f]{32}$/;
/**
 * How long a signature stays bound to the one parameter set it came with. Twilio's signed bytes
 * carry no timestamp, so this claim is what refuses a replay once the session's 7-day dedup
 * record of the MessageSid is pruned: it is kept much longer.
 */
export const SIGNATURE_CLAIM_MS = 400 * 24 * 60 * 60 * 1000;

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
  input: { authToken: string; url: string; header: string | undefined; params: [string, string][] },
  context: Pick<GatewayContext, "claimOnce">,
): Promise<{ ok: true } | { ok: false; reason: DeliveryFailure }> {
  const { params } = input;
  const verdict = verifyTwilioSignature(input.authToken, input.header, input.url, params);
  if (!verdict.ok) return verdict;
  if (new Set(params.map(([key]) => key)).size !== params.length)
    return { ok: false, reason: "duplicate_parameter" };
  const sid = params.find(([key]) => key === "MessageSid")?.[1];
  if (sid !== undefined && !MESSAGE_SID.test(sid)) return { ok: false, reason: "malformed_message_sid" };
  // Twilio retrying a request sends the same parameters: the same fingerprint passes again.
  const fingerprint = createHash("sha256")
    .update(JSON.stringify([...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))))
    .digest("hex");
  const claim = await context.claimOnce(
    `signature:${input.header?.trim() ?? ""}`,
    fingerprint,
    SIGNATURE_CLAIM_MS,
  );
  if (!claim.claimed && claim.value !== fingerprint) return { ok: false, reason: "replayed_signature" };
  return { ok: true };
}

export { SIGNATURE_HEADER };

export type TwilioDelivery =
  | { kind: "message"; sid: string; from: string; to: string; body: string }
  | { kind: "opt-out"; sid: string; from: string; optOutType: string }
  | { kind: "status"; sid: string; status: string; errorCode?: string; to?: string }
  | { kind: "ignored"; reason: string; level: "debug" | "warn"; detail?: Record<string, unknown> };

/** What one verified form means for this account. */
export function readDelivery(form: Map<string, string>, accountSid: string): TwilioDelivery {
  const sid = form.get("MessageSid");
  if (!sid)
    return {
      kind: "ignored",
      level: "debug",
      reason: "not a message (voice or another callback); ignored",
      detail: { callSid: form.get("CallSid") },
    };
  if (form.get("AccountSid") !== accountSid)
    return {
      kind: "ignored",
      level: "warn",
      reason: "message for another account; ignored",
      detail: { accountSid: form.get("AccountSid"), sid },
    };
  const status = form.get("MessageStatus");
  if (status) {
    const errorCode = form.get("ErrorCode");
    const to = form.get("To");
    return { kind: "status", sid, status, ...(errorCode ? { errorCode } : {}), ...(to ? { to } : {}) };
  }
  const from = form.get("From");
  if (!from)
    return { kind: "ignored", level: "debug", reason: "message without From; ignored", detail: { sid } };
  // Advanced Opt-Out marks STOP / START / HELP keywords; Twilio has already answered them.
  const optOutType = form.get("OptOutType");
  if (optOutType) return { kind: "opt-out", sid, from, optOutType };
  const body = form.get("Body") ?? "";
  if (body.trim() === "")
    return {
      kind: "ignored",
      level: "debug",
      reason: "message without text (media is not downloaded); ignored",
      detail: { sid, numMedia: form.get("NumMedia") },
    };
  return { kind: "message", sid, from, to: form.get("To") ?? "", body };
}
