// The http gateway's one outbound call: POST a message to the entry's `callbackUrl`, signed with
// the gateway's secret (v1 over the body). A failure is classified by session-core's `sendFailure`:
// 408/425/429/5xx and network errors retried (Retry-After honoured), 401 names the secret's
// variable, any other 4xx dead-lettered.
//
// Sent through node:http(s) with a keep-alive pool, not the global fetch: fetch built a Request,
// Headers, a web stream and a Response per call, and opened a connection each time (cancelling the
// unread answer closed it): 0.2-0.3 ms of the server's CPU a message on the PostgreSQL ingest bench
// with callbacks (README "### ingest-pg"). Redirects are not followed: the signed message goes to
// the configured URL only, and a 3xx is an answer like any other non-2xx.
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { sendFailure } from "@agentsvc/adapter-kit";
import { signatureHeaders } from "./signature.js";

export interface CallbackOptions {
  url: string;
  secret: string;
  /** The secret's environment variable, named when the receiver answers 401. */
  secretEnvVar: string;
  /** The longest wait for the answer's head (and, after it, for its body to be drained). */
  timeoutMs: number;
}

// One pool per scheme for every http gateway, as fetch's global one was; idle sockets are unref'd
// by the Agent, so they never hold the process open. An idle socket is closed after 4 s, before
// Node's own servers close theirs (5 s), or 1 s before a receiver's `Keep-Alive: timeout=<s>`, which
// Node's Agent reads only when it has a timeout of its own: a callback seldom goes out on a connection
// the receiver is closing (a reset, then another attempt).
const IDLE_MS = 4_000;
// fetch and Node's global agents go through HTTP_PROXY / HTTPS_PROXY (minus NO_PROXY) when Node runs
// with NODE_USE_ENV_PROXY=1 or --use-env-proxy, an Agent of one's own only when given `proxyEnv`
// (Node's "Built-in Proxy Support"): these pools are given it then, as fetch honoured it.
const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
const envProxy = process.env.NODE_USE_ENV_PROXY === "1" || flags.includes("--use-env-proxy");
const agentOptions = { keepAlive: true, timeout: IDLE_MS, ...(envProxy ? { proxyEnv: process.env } : {}) };
const pools = { "http:": new HttpAgent(agentOptions), "https:": new HttpsAgent(agentOptions) };

interface Answer {
  status: number;
  retryAfter: string | undefined;
}

/**
 * POSTs `body` and resolves with the answer's status once its head arrives; its body is drained
 * unread so the connection goes back to the pool (destroyed instead if that takes past the timeout).
 */
function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const scheme = url.protocol;
    if (scheme !== "http:" && scheme !== "https:") {
      reject(new Error(`unsupported protocol ${scheme}`));
      return;
    }
    const bytes = Buffer.from(body, "utf8");
    const send = scheme === "https:" ? httpsRequest : httpRequest;
    const req = send(url, {
      method: "POST",
      agent: pools[scheme],
      headers: { ...headers, "content-length": String(bytes.byteLength) },
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    // `on`, not `once`: a destroy after the answer (a body still arriving at the timeout) errors again.
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on("response", (res: IncomingMessage) => {
      const retryAfter = res.headers["retry-after"];
      resolve({ status: res.statusCode ?? 0, retryAfter });
      res.on("error", () => {});
      res.on("end", () => clearTimeout(timer));
      res.resume();
    });
    req.end(bytes);
  });
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
  let answer: Answer;
  try {
    answer = await post(new URL(o.url), headers, body, o.timeoutMs);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw sendFailure(
      { network: true, detail },
      { platform: "http", call: `callback to ${o.url}`, cause: err },
    );
  }
  if (answer.status < 200 || answer.status > 299) {
    throw sendFailure(
      { status: answer.status, retryAfter: answer.retryAfter ?? null },
      { platform: "http", call: `callback to ${o.url}`, envVar: o.secretEnvVar },
    );
  }
}
