// The http gateway's one outbound call: POST a message to the entry's `callbackUrl`, signed with
// the gateway's secret (v1 over the body). A failure is classified by session-core's `sendFailure`:
// 408/425/429/5xx and network errors retried (Retry-After honoured), 401 names the secret's
// variable, any other 4xx dead-lettered.
import { sendFailure } from "@agentsvc/adapter-kit";
import { signatureHeaders } from "./signature.js";

export interface CallbackOptions {
  url: string;
  secret: string;
  /** The secret's environment variable, named when the receiver answers 401. */
  secretEnvVar: string;
  timeoutMs: number;
}

export async function postCallback(o: CallbackOptions, message: Record<string, unknown>): Promise<void> {
  const body = JSON.stringify(message);
  let res: Response;
  try {
    res = await fetch(o.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...signatureHeaders(o.secret, body) },
      body,
      signal: AbortSignal.timeout(o.timeoutMs),
    });
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw sendFailure(
      { network: true, detail },
      { platform: "http", call: `callback to ${o.url}`, cause: err },
    );
  }
  await res.body?.cancel();
  if (!res.ok) {
    throw sendFailure(
      { status: res.status, retryAfter: res.headers.get("retry-after") },
      { platform: "http", call: `callback to ${o.url}`, envVar: o.secretEnvVar },
    );
  }
}
