// The reply: POST <apiBaseUrl>/2010-04-01/Accounts/<AccountSid>/Messages.json, form-encoded `To`,
// `Body` and `From` (or `MessagingServiceSid` when configured), HTTP basic auth.
import { jsonOrSendError } from "@agentsvc/webhook-kit";

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
  const created = await jsonOrSendError<{ sid?: string }>(res, { platform: "twilio", call: "Messages call" });
  return created?.sid;
}
