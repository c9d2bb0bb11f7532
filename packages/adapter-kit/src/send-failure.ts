// The one failure classifier for every outbound platform call. The defaults hold for all platforms;
// an adapter adds only its own codes through a PlatformRule, which is consulted first.
import { GatewaySendError, retryAfterMs as parseRetryAfter } from "./errors.js";
import {
  FETCH_DEFAULT_HEADERS,
  HttpAnswerTooLargeError,
  httpTransport,
  type PlatformAnswer,
} from "./http-transport.js";

/** `retry`: later, with backoff; `permanent`: dead-letter at once; `credentials`: stop the gateway. */
export type FailureKind = "retry" | "permanent" | "credentials";

/** What is known about one failed call. */
export interface FailureFacts {
  /** HTTP status of the answer, when there was one. */
  status?: number;
  /** The `Retry-After` header as sent (seconds or an HTTP date). */
  retryAfter?: string | null;
  /** A wait the platform gave in its body (Telegram `retry_after`, Slack `Retry-After` already parsed). */
  retryAfterMs?: number;
  /** The platform's own error code (Slack `invalid_auth`, Graph 190, Twilio 20003, ...). */
  code?: string | number;
  /** The call never got an answer (refused, reset, DNS, timeout). */
  network?: boolean;
  /** A short description for the log (a body excerpt, an error message). */
  detail?: string;
}

export type FailureClass = { kind: FailureKind; retryAfterMs?: number };

/** A platform's own codes; undefined falls through to the defaults. */
export type PlatformRule = (facts: FailureFacts) => FailureClass | undefined;

/** Statuses a later try may get past: timeouts, "too early", throttling. Every 5xx too. */
const RETRY_STATUSES = new Set([408, 425, 429]);

/**
 * Network error, 408, 425, 429 and 5xx -> retry (waiting `Retry-After` or the platform's wait);
 * 401 -> credentials; every other 4xx (400, 403, 404, 413, 422, ...) -> permanent. A failure with
 * neither a status nor a network flag is retried: the outbox bounds the attempts.
 */
export function classifyFailure(facts: FailureFacts, platformRule?: PlatformRule): FailureClass {
  const wait = facts.retryAfterMs ?? parseRetryAfter(facts.retryAfter);
  const withWait = (kind: FailureKind): FailureClass =>
    kind === "retry" && wait !== undefined ? { kind, retryAfterMs: wait } : { kind };
  const ruled = platformRule?.(facts);
  if (ruled) {
    return ruled.kind === "retry" && ruled.retryAfterMs === undefined ? withWait("retry") : ruled;
  }
  const { status } = facts;
  if (facts.network || status === undefined) return withWait("retry");
  if (RETRY_STATUSES.has(status) || status >= 500) return withWait("retry");
  if (status === 401) return { kind: "credentials" };
  if (status >= 400 && status < 500) return { kind: "permanent" };
  return withWait("retry");
}

export interface SendFailureOptions {
  /** Platform name for the message (`telegram`, `whatsapp`, ...). */
  platform: string;
  /** What was called, for the message (`sendMessage`, `messages call`). */
  call: string;
  /** The variable holding the credential this call used: named when it is rejected. */
  envVar?: string;
  platformRule?: PlatformRule;
  cause?: unknown;
}

/** The outbox's error for one failed call, classified. */
export function sendFailure(facts: FailureFacts, o: SendFailureOptions): GatewaySendError {
  const verdict = classifyFailure(facts, o.platformRule);
  const what = [
    facts.status !== undefined ? `answered ${facts.status}` : facts.network ? "failed (network)" : "failed",
    facts.code !== undefined ? `code ${facts.code}` : undefined,
  ]
    .filter(Boolean)
    .join(", ");
  const detail = facts.detail ? ` (${facts.detail.slice(0, 300)})` : "";
  const message =
    verdict.kind === "credentials"
      ? `${o.platform}: ${o.call} rejected the credentials${o.envVar ? ` in ${o.envVar}` : ""}: ${what}${detail}`
      : `${o.platform}: ${o.call} ${what}${detail}`;
  return new GatewaySendError(message, {
    ...(facts.status !== undefined ? { status: facts.status } : {}),
    ...(verdict.retryAfterMs !== undefined ? { retryAfterMs: verdict.retryAfterMs } : {}),
    permanent: verdict.kind === "permanent",
    credentials: verdict.kind === "credentials",
    ...(o.envVar !== undefined ? { envVar: o.envVar } : {}),
    ...(o.cause !== undefined ? { cause: o.cause } : {}),
  });
}

/**
 * Bound of a send's whole exchange: undici's headersTimeout and bodyTimeout (300 s each), what bounded
 * these calls when they went through fetch.
 */
const SEND_TIMEOUT_MS = 300_000;

/**
 * One platform call for the outbox: a transport failure becomes the platform's network send failure
 * (the outbox retries it), a timeout and an answer that breaks off while its body is read too; an
 * abort by `signal` (the service stopping) is thrown as it is. A string (or URLSearchParams) body goes
 * through the kit's keep-alive transport, with the headers fetch sent (http-transport.ts: a redirect
 * is an answer, not followed); FormData, a Blob or a stream through fetch.
 */
export async function fetchForSend(
  url: string,
  init: RequestInit,
  o: SendFailureOptions,
  signal?: AbortSignal,
): Promise<PlatformAnswer> {
  const abort = signal ?? init.signal ?? undefined;
  const lost = (err: unknown, detail: string) => {
    if (abort?.aborted) return err;
    return sendFailure({ network: true, detail }, { ...o, cause: err });
  };
  const { body } = init;
  if (body != null && typeof body !== "string" && !(body instanceof URLSearchParams)) {
    try {
      return await fetch(url, { ...init, ...(signal ? { signal } : {}) });
    } catch (err) {
      throw lost(err, String(err));
    }
  }
  try {
    return await httpTransport.request(url, {
      method: init.method ?? "GET",
      headers: fetchHeaders(init.headers, body),
      ...(body != null ? { body: String(body) } : {}),
      timeoutMs: SEND_TIMEOUT_MS,
      ...(abort ? { signal: abort } : {}),
      // A body cut off is the same network failure as no answer at all; one too large to keep is
      // the platform's answer, classified by its status.
      bodyFailure: (err) =>
        err instanceof HttpAnswerTooLargeError
          ? sendFailure({ status: err.status, detail: err.message }, { ...o, cause: err })
          : lost(err, `the answer broke off (${err instanceof Error ? err.message : String(err)})`),
    });
  } catch (err) {
    throw lost(err, err instanceof Error ? err.message : String(err));
  }
}

/** The headers fetch would send: its defaults, the body's type unless given, the caller's (lower-cased). */
function fetchHeaders(given: RequestInit["headers"], body: unknown): Record<string, string> {
  const headers: Record<string, string> = { ...FETCH_DEFAULT_HEADERS };
  if (typeof body === "string") headers["content-type"] = "text/plain;charset=UTF-8";
  else if (body instanceof URLSearchParams)
    headers["content-type"] = "application/x-www-form-urlencoded;charset=UTF-8";
  if (given === undefined) return headers;
  // A plain object (every adapter's) is read as it is: a Headers built a call is what this path saves.
  if (given instanceof Headers || Array.isArray(given))
    new Headers(given).forEach((v, k) => {
      headers[k] = v;
    });
  else for (const [k, v] of Object.entries(given as Record<string, string>)) headers[k.toLowerCase()] = v;
  return headers;
}

/** A platform's answer as JSON, or `{}` when it is not (a proxy's HTML page is classified by status alone). */
export function parseAnswer<T extends object>(text: string): Partial<T> {
  try {
    return JSON.parse(text) as Partial<T>;
  } catch {
    return {};
  }
}
