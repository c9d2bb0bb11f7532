// Conversation activities through the connector: POST <serviceUrl>v3/conversations/<id>/activities
// for a new message, PUT .../activities/<activityId> to replace one (the decided card).
import { GatewaySendError, retryAfterMs } from "@agentsvc/session-core";
import type { BotToken } from "./bot-token.js";

export async function connectorCall(
  token: BotToken,
  serviceUrl: string,
  conversationId: string,
  activity: Record<string, unknown>,
  options: { activityId?: string; signal?: AbortSignal } = {},
): Promise<string | undefined> {
  const base = `${serviceUrl.replace(/\/+$/, "")}/v3/conversations/${encodeURIComponent(conversationId)}/activities`;
  const url = options.activityId ? `${base}/${encodeURIComponent(options.activityId)}` : base;
  const res = await fetch(url, {
    method: options.activityId ? "PUT" : "POST",
    headers: {
      authorization: `Bearer ${await token.get(options.signal)}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(activity),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  if (!res.ok) {
    const detail = `${res.status} ${text.slice(0, 300)}`;
    if (res.status === 401) {
      token.invalidate();
      throw new GatewaySendError(`teams: connector refused the token ${detail}`, { status: 401 });
    }
    if (res.status === 429)
      throw new GatewaySendError(`teams: throttled ${detail}`, {
        status: 429,
        retryAfterMs: retryAfterMs(res.headers.get("retry-after")) ?? 1_000,
      });
    const permanent = res.status >= 400 && res.status < 500 && res.status !== 408;
    throw new GatewaySendError(`teams: connector answered ${detail}`, { status: res.status, permanent });
  }
  try {
    return (JSON.parse(text) as { id?: string }).id;
  } catch {
    return undefined;
  }
}
