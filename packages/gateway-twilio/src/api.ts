// The reply: POST <apiBaseUrl>/2010-04-01/Accounts/<AccountSid>/Messages.json, form-encoded `To`,
// `Body` and `From` (or `MessagingServiceSid` when configured), HTTP basic auth. A failure goes
// through the session's classifier with Twilio's own codes first
// (https://www.twilio.com/docs/api/errors).
import {
  type FailureFacts,
  fetchForSend,
  parseAnswer,
  type PlatformRule,
  sendFailure,
} from "@agentsvc/adapter-kit";

export interface MessagesTarget {
  apiBaseUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
  messagingServiceSid?: string;
  /** The variable holding the Auth Token, named when Twilio rejects the credentials. */
  authTokenEnvVar: string;
}

/** 20003: "Authenticate" — the Account SID / Auth Token pair is wrong or revoked. */
const AUTHENTICATE = 20003;

export const twilioRule: PlatformRule = (facts: FailureFacts) =>
  facts.code === AUTHENTICATE ? { kind: "credentials" } : undefined;

export async function createMessage(
  target: MessagesTarget,
  to: string,
  body: string,
  signal?: AbortSignal,
  /** A public URL Twilio fetches the file from (an MMS; https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource). */
  mediaUrl?: string,
): Promise<string | undefined> {
  const form = new URLSearchParams({ To: to, Body: body });
  if (mediaUrl) form.set("MediaUrl", mediaUrl);
  if (target.messagingServiceSid) form.set("MessagingServiceSid", target.messagingServiceSid);
  else form.set("From", target.from);
  const base = target.apiBaseUrl.replace(/\/$/, "");
  const call = {
    platform: "twilio",
    call: "Messages call",
    envVar: target.authTokenEnvVar,
    platformRule: twilioRule,
  };
  const res = await fetchForSend(
    `${base}/2010-04-01/Accounts/${encodeURIComponent(target.accountSid)}/Messages.json`,
    {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${target.accountSid}:${target.authToken}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form.toString(),
    },
    call,
    signal,
  );
  const text = await res.text();
  const answer = parseAnswer<{ sid: string; code: number; message: string }>(text);
  if (!res.ok)
    throw sendFailure(
      {
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        // Stryker disable next-line ConditionalExpression: an absent code and `code: undefined` classify alike
        ...(answer.code !== undefined ? { code: answer.code } : {}),
        // The failure keeps the first 300 characters.
        detail: answer.message ?? text,
      },
      call,
    );
  return answer.sid;
}
