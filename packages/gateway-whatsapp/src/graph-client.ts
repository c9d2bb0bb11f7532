// The one outbound call: POST <apiBaseUrl>/<apiVersion>/<phone-number-id>/messages with a bearer token.
// Failures become GatewaySendError so the session's outbox knows whether and when to retry.
import { GatewaySendError, retryAfterMs } from "@agentsvc/session-core";

export interface GraphTarget {
  apiBaseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  accessToken: string;
}

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
  const text = await res.text();
  if (!res.ok) throw sendError(res.status, res.headers.get("retry-after"), text);
  try {
    const body = JSON.parse(text) as { messages?: { id?: string }[] };
    return body.messages?.[0]?.id;
  } catch {
    return undefined;
  }
}

/** 429 and Meta's throughput code 130429 wait for Retry-After; 5xx/408 retry; other 4xx never succeed. */
function sendError(status: number, retryAfter: string | null, body: string): GatewaySendError {
  const code = /"code"\s*:\s*(\d+)/.exec(body)?.[1];
  const detail = body.slice(0, 300);
  const throttled = status === 429 || code === "130429" || code === "131056" || code === "80007";
  if (throttled)
    return new GatewaySendError(`whatsapp: throttled (${status}) ${detail}`, {
      status,
      retryAfterMs: retryAfterMs(retryAfter) ?? 1_000,
    });
  const permanent = status >= 400 && status < 500 && status !== 408;
  return new GatewaySendError(`whatsapp: messages call answered ${status} ${detail}`, { status, permanent });
}
