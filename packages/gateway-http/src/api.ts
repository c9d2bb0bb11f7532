// The http gateway's one outbound call: POST a message to the entry's `callbackUrl`, signed with
// the gateway's secret (v1 over the body). A failure is classified by session-core's `sendFailure`:
// 408/425/429/5xx and network errors retried (Retry-After honoured), 401 names the secret's
// variable, any other 4xx dead-lettered.
//
// Sent through adapter-kit's keep-alive transport (http-transport.ts), not the global fetch: fetch
// built a Request, Headers, a web stream and a Response per call, and opened a connection each time
// (cancelling the unread answer closed it): 0.2-0.3 ms of the server's CPU a message on the
// PostgreSQL ingest bench with callbacks (docs/benchmarks.md "ingest-pg"). Redirects are not followed: the
// signed message goes to the configured URL only, and a 3xx is an answer like any other non-2xx.
import { httpTransport, sendFailure } from "@agentsvc/adapter-kit";
import { signatureHeaders } from "./signature.js";

export interface CallbackOptions {
  url: string;
  secret: string;
  /** The secret's environment variable, named when the receiver answers 401. */
  secretEnvVar: string;
  /** The longest wait for the answer's head (and, after it, for its body to be drained). */
  timeoutMs: number;
}

export async function postCallback(o: CallbackOptions, message: Record<string, unknown>): Promise<void> {
  const body = JSON.stringify(message);
  // Accept and User-Agent as fetch sent them: a receiver's firewall may refuse a request without.
  const headers = {
    "content-type": "application/json",
    accept: "*/*",
    "user-agent": "node",
    ...signatureHeaders(o.secret, body),
  };
  let answer: { status: number; retryAfter: string | null };
  try {
    const got = await httpTransport.request(o.url, { method: "POST", headers, body, timeoutMs: o.timeoutMs });
    // Drained unread, so the connection goes back to the pool (closed if that takes past the timeout).
    got.discard();
    answer = { status: got.status, retryAfter: got.headers.get("retry-after") };
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw sendFailure(
      { network: true, detail },
      { platform: "http", call: `callback to ${o.url}`, cause: err },
    );
  }
  if (answer.status < 200 || answer.status > 299) {
    throw sendFailure(
      { status: answer.status, retryAfter: answer.retryAfter },
      { platform: "http", call: `callback to ${o.url}`, envVar: o.secretEnvVar },
    );
  }
}
