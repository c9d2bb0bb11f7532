// A platform API's failed answer as the outbox needs it. The verdict comes from session-core's one
// classifier (429/408/425/5xx retry, 401 credentials, other 4xx permanent); this file only reads the
// answer and adds the caller's own throttling signal.
import { type GatewaySendError, type PlatformRule, sendFailure } from "@agentsvc/adapter-kit";

export interface FailedAnswer {
  status: number;
  headers: Headers;
  body: string;
}

export interface SendErrorOptions {
  /** Platform name for the message (`whatsapp`, `github`, ...). */
  platform: string;
  /** What was called, for the message (`messages call`). */
  call: string;
  /** Platform-specific throttling outside 429 (an error code, a 403 with an exhausted quota). */
  throttled?: boolean;
  /** Wait when throttled without a Retry-After header. Default 1 s. */
  defaultRetryAfterMs?: number;
  /** The variable holding the credential the call used: named when the platform rejects it (401). */
  envVar?: string;
  /** The platform's own codes, consulted before the defaults. */
  platformRule?: PlatformRule;
}

export function sendErrorFor(answer: FailedAnswer, options: SendErrorOptions): GatewaySendError {
  const { status } = answer;
  const retryAfter = answer.headers.get("retry-after");
  const throttled = status === 429 || options.throttled === true;
  // Throttling without a wait from the platform waits the default rather than the first backoff step.
  const wait = throttled && retryAfter === null ? (options.defaultRetryAfterMs ?? 1_000) : undefined;
  const rule: PlatformRule = (facts) =>
    options.throttled
      ? { kind: "retry", ...(wait !== undefined ? { retryAfterMs: wait } : {}) }
      : options.platformRule?.(facts);
  return sendFailure(
    {
      status,
      retryAfter,
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
      detail: answer.body.slice(0, 300),
    },
    {
      platform: options.platform,
      call: options.call,
      ...(options.envVar !== undefined ? { envVar: options.envVar } : {}),
      platformRule: rule,
    },
  );
}

/** Reads a response body and turns a non-2xx answer into the outbox's error; the parsed JSON otherwise. */
export async function jsonOrSendError<T>(
  res: Response,
  options: SendErrorOptions & { isThrottled?: (a: FailedAnswer) => boolean },
): Promise<T | undefined> {
  const body = await res.text();
  if (!res.ok) {
    const answer = { status: res.status, headers: res.headers, body };
    throw sendErrorFor(answer, { ...options, throttled: options.isThrottled?.(answer) ?? false });
  }
  try {
    return JSON.parse(body) as T;
  } catch {
    return undefined;
  }
}
