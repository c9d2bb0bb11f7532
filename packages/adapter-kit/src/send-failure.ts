// The one failure classifier for every outbound platform call. The defaults hold for all platforms;
// an adapter adds only its own codes through a PlatformRule, which is consulted first.
import { GatewaySendError, retryAfterMs as parseRetryAfter } from "./errors.js";

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
 * One platform call by fetch: a transport failure becomes the platform's network send failure (the
 * outbox retries it); an abort by `signal` (the service stopping) is thrown as it is.
 */
export async function fetchForSend(
  url: string,
  init: RequestInit,
  o: SendFailureOptions,
  signal?: AbortSignal,
): Promise<Response> {
  try {
    return await fetch(url, { ...init, ...(signal ? { signal } : {}) });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw sendFailure({ network: true, detail: String(err) }, { ...o, cause: err });
  }
}

/** A platform's answer as JSON, or `{}` when it is not (a proxy's HTML page is classified by status alone). */
export function parseAnswer<T extends object>(text: string): Partial<T> {
  try {
    return JSON.parse(text) as Partial<T>;
  } catch {
    return {};
  }
}
