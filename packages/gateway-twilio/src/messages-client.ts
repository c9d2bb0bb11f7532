// The reply: POST <apiBaseUrl>/2010-04-01/Accounts/<AccountSid>/Messages.json, form-encoded `To`,
// `Body` and `From` (or `MessagingServiceSid` when configured), HTTP basic auth.
import { GatewaySendError, retryAfterMs } from "@agentsvc/session-core";

export interface MessagesTarget {
  apiBaseUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
  messagingServiceSid?: string;
}

export async function createMessage(
  target: MessagesTarget,
  to: string,
  body: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const form = new URLSearchParams({ To: to, Body: body });
  if (target.messagingServiceSid) form.set("MessagingServiceSid", target.messagingServiceSid);
  else form.set("From", target.from);
  const base = target.apiBaseUrl.replace(/\/$/, "");
  const res = await fetch(
    `${base}/2010-04-01/Accounts/${encodeURIComponent(target.accountSid)}/Messages.json`,
    {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${target.accountSid}:${target.authToken}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form.toString(),
      ...(signal ? { signal } : {}),
    },
  );
  const text = await res.text();
  if (!res.ok) {
    const detail = text.slice(0, 300);
    if (res.status === 429)
      throw new GatewaySendError(`twilio: rate limited ${detail}`, {
        status: 429,
        retryAfterMs: retryAfterMs(res.headers.get("retry-after")) ?? 1_000,
      });
    const permanent = res.status >= 400 && res.status < 500 && res.status !== 408;
    throw new GatewaySendError(`twilio: Messages call answered ${res.status} ${detail}`, {
      status: res.status,
      permanent,
    });
  }
  try {
    return (JSON.parse(text) as { sid?: string }).sid;
  } catch {
    return undefined;
  }
}
