// A platform API's failed answer as the outbox needs it: wait as told on 429 (Retry-After), retry
// 5xx, 408 and anything the caller calls throttling, give up at once on any other 4xx.
import { GatewaySendError, retryAfterMs } from "@agentsvc/session-core";

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
}

export function sendErrorFor(answer: FailedAnswer, options: SendErrorOptions): GatewaySendError {
  const { status } = answer;
  const detail = `${status} ${answer.body.slice(0, 300)}`;
  if (status === 429 || options.throttled) {
    return new GatewaySendError(`${options.platform}: ${options.call} throttled (${detail})`, {
      status,
      retryAfterMs: retryAfterMs(answer.headers.get("retry-after")) ?? options.defaultRetryAfterMs ?? 1_000,
    });
  }
  const permanent = status >= 400 && status < 500 && status !== 408;
  return new GatewaySendError(`${options.platform}: ${options.call} answered ${detail}`, {
    status,
    permanent,
  });
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
