// A minimal Bot API client: POST JSON to `<apiBaseUrl>/bot<token>/<method>`, unwrap `{ ok, result }`.
// The token is part of the URL, so URLs are never logged or put in error messages.
// Errors: https://core.telegram.org/bots/api#making-requests (`error_code`, `description`) and
// https://core.telegram.org/bots/api#responseparameters (`retry_after` in seconds on a 429).
import { type GatewaySendError, type PlatformRule, sendFailure } from "@agentsvc/adapter-kit";

export class TelegramApiError extends Error {
  constructor(
    readonly method: string,
    /** HTTP status or the body's `error_code`; 0 when the request never got an answer. */
    readonly status: number,
    readonly description: string,
    /** `parameters.retry_after` of a 429, in seconds. */
    readonly retryAfter?: number,
    cause?: unknown,
  ) {
    super(`telegram ${method}: ${status || "no answer"} ${description}`, cause ? { cause } : undefined);
    this.name = "TelegramApiError";
  }
}

interface ApiBody {
  ok: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

export class BotApi {
  readonly #base: string;
  readonly #files: string;
  readonly #timeoutMs: number;

  constructor(apiBaseUrl: string, token: string, timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#base = `${apiBaseUrl.replace(/\/+$/, "")}/bot${token}`;
    this.#files = `${apiBaseUrl.replace(/\/+$/, "")}/file/bot${token}`;
  }

  /** The download URL of a getFile `file_path` (holds the token: never logged). */
  fileUrl(filePath: string): string {
    return `${this.#files}/${filePath}`;
  }

  /**
   * Calls `method`; throws TelegramApiError on a non-ok answer, a timeout or a dropped connection.
   * `params` as FormData is sent as multipart/form-data (a file upload).
   */
  async call<T>(
    method: string,
    params: Record<string, unknown> | FormData,
    signal?: AbortSignal,
    timeoutMs = this.#timeoutMs,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${this.#base}/${method}`, {
        method: "POST",
        ...(params instanceof FormData
          ? { body: params }
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(params) }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      const why = timeout.aborted ? `no answer within ${timeoutMs} ms` : "connection failed";
      throw new TelegramApiError(method, 0, why, undefined, err);
    }
    let body: ApiBody;
    try {
      body = (await res.json()) as ApiBody;
    } catch (err) {
      throw new TelegramApiError(method, res.status, "unreadable answer", undefined, err);
    }
    if (body.ok) return body.result as T;
    throw new TelegramApiError(
      method,
      body.error_code ?? res.status,
      body.description ?? res.statusText,
      body.parameters?.retry_after,
    );
  }
}

/**
 * Telegram's own codes on top of the shared defaults: a 404 means the token in the URL path is
 * malformed (every method exists), so it is a credentials problem, not a missing chat (that is 400).
 */
const telegramRule: PlatformRule = (facts) => (facts.status === 404 ? { kind: "credentials" } : undefined);

/** The outbox's error for a failed Bot API call (429 waits `retry_after`, 401/404 stop the gateway). */
export function sendFailureOf(err: TelegramApiError, envVar: string): GatewaySendError {
  return sendFailure(
    {
      ...(err.status ? { status: err.status } : { network: true }),
      ...(err.retryAfter !== undefined ? { retryAfterMs: err.retryAfter * 1000 } : {}),
      detail: err.description,
    },
    { platform: "telegram", call: err.method, envVar, platformRule: telegramRule, cause: err },
  );
}
