// Meta's webhook for the Cloud API: the GET subscription handshake and signed POST notifications,
// as verify / parse for the kit's webhookRoute (the recording is the gateway's `handle`).
// https://developers.facebook.com/docs/graph-api/webhooks/getting-started (handshake, X-Hub-Signature-256)
// https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples
import type { WebhookRequest } from "@agentsvc/adapter-kit";
import {
  SIGNATURE_HEADER,
  safeEqualText,
  verifyHubSignature,
  type VerifyResult,
} from "@agentsvc/webhook-kit";
import { readNotification, type WhatsAppEvent } from "./inbound.js";

/** GET: only mode `subscribe` with the configured verify token (never empty: the start requires it). */
export function verifyHandshake(req: WebhookRequest, verifyToken: string): VerifyResult {
  if (req.query.get("hub.mode") !== "subscribe") return { ok: false, reason: "mode is not subscribe" };
  const token = req.query.get("hub.verify_token") ?? "";
  // Stryker disable next-line ConditionalExpression,StringLiteral: unreachable defence: the start refuses an empty token and the route answers nothing before it
  if (verifyToken === "" || !safeEqualText(token, verifyToken))
    return { ok: false, reason: "wrong verify token" };
  return { ok: true };
}

/** POST: `sha256=` HMAC of the exact raw bytes with the app secret, before anything is parsed. */
export function verifyNotification(req: WebhookRequest, appSecret: string): VerifyResult {
  return verifyHubSignature(appSecret, req.headers[SIGNATURE_HEADER], req.rawBody);
}

/** The events of a verified notification; a body that is not JSON is refused (400). */
export function parseNotification(
  req: WebhookRequest,
  phoneNumberId: string,
  takesMedia = false,
): WhatsAppEvent[] | { invalid: string } {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(req.rawBody).toString("utf8"));
  } catch {
    return { invalid: "signed webhook body is not JSON" };
  }
  return readNotification(payload, phoneNumberId, Date.now(), takesMedia);
}
