// The one outbound call: POST <apiBaseUrl>/<apiVersion>/<phone-number-id>/messages with a bearer token.
// Failures become GatewaySendError so the session's outbox knows whether and when to retry.
import { jsonOrSendError } from "@agentsvc/webhook-kit";

export interface GraphTarget {
  apiBaseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  accessToken: string;
}

/** Meta's throughput and rate-limit error codes, answered with 4xx bodies: wait, then retry. */
const THROTTLE_CODES = new Set(["130429", "131056", "80007", "4"]);

export async function postMessage(
  target: GraphTarget,
  message: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const url = `${target.apiBaseUrl.replace(/\/$/, "")}/${target.apiVersion}/${encodeURIComponent(target.phoneNumberId)}/messages`;
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${target.accessToken}`, "content-type": "application/json" },
    body: JSON.stringify({ messaging_product: "whatsapp", recipient_type: "individual", ...message }),
    ...(signal ? { signal } : {}),
  });
  const body = await jsonOrSendError<{ messages?: { id?: string }[] }>(res, {
    platform: "whatsapp",
    call: "messages call",
    isThrottled: (a) => THROTTLE_CODES.has(/"code"\s*:\s*(\d+)/.exec(a.body)?.[1] ?? ""),
  });
  return body?.messages?.[0]?.id;
}
