// Conversation activities through the connector: POST <serviceUrl>v3/conversations/<id>/activities
// for a new message, PUT .../activities/<activityId> to replace one (the decided card).
import { GatewaySendError } from "@agentsvc/session-core";
import { jsonOrSendError } from "@agentsvc/webhook-kit";
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
  if (res.status === 401) {
    // Refused token (revoked, or expired early): fetch a new one on the next try.
    token.invalidate();
    throw new GatewaySendError(
      `teams: connector refused the token (401 ${(await res.text()).slice(0, 200)})`,
      {
        status: 401,
      },
    );
  }
  const body = await jsonOrSendError<{ id?: string }>(res, { platform: "teams", call: "connector call" });
  return body?.id;
}
