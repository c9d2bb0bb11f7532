// A minimal Bot API client on the kit's PlatformClient: POST JSON to `<apiBaseUrl>/bot<token>/<method>`,
// unwrap `{ ok, result }`. The token is part of the URL, so URLs are never logged or put in errors.
// Errors: https://core.telegram.org/bots/api#making-requests (`error_code`, `description`) and
// https://core.telegram.org/bots/api#responseparameters (`retry_after` in seconds on a 429).
import {
  type FailureFacts,
  type GatewaySendError,
  type PlatformCallError,
  PlatformClient,
  type PlatformRule,
} from "@agentsvc/adapter-kit";

interface ApiBody {
  ok?: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

/** Telegram reports a failure in the body (`ok: false`), with its own code, words and wait. */
function bodyFailure(body: unknown): FailureFacts | undefined {
  const b = body as ApiBody;
  if (b.ok) return undefined;
  const wait = b.parameters?.retry_after;
  return {
    ...(b.error_code !== undefined ? { status: b.error_code } : {}),
    ...(b.description !== undefined ? { detail: b.description } : {}),
    ...(wait !== undefined ? { retryAfterMs: wait * 1000 } : {}),
  };
}

/**
 * Reads Telegram may get twice without harm, sent again when a kept-alive socket the server had closed
 * fails them before any answer: getMe, getFile (a link to the same file) and getUpdates (the same
 * offset confirms the same updates and hands out the same ones). Sends are not: one that may have
 * reached Telegram is the outbox's to retry, by its rules.
 */
const REPEATABLE = new Set(["getMe", "getFile", "getUpdates"]);

export class BotApi {
  readonly #base: string;
  readonly #files: string;
  readonly #client: PlatformClient;

  constructor(apiBaseUrl: string, token: string, timeoutMs: number, maxAnswerBytes?: number) {
    this.#base = `${apiBaseUrl.replace(/\/+$/, "")}/bot${token}`;
    this.#files = `${apiBaseUrl.replace(/\/+$/, "")}/file/bot${token}`;
    this.#client = new PlatformClient({
      platform: "telegram",
      timeoutMs,
      bodyFailure,
      ...(maxAnswerBytes !== undefined ? { maxBytes: maxAnswerBytes } : {}),
    });
  }

  /** The download URL of a getFile `file_path` (holds the token: never logged). */
  fileUrl(filePath: string): string {
    return `${this.#files}/${filePath}`;
  }

  /**
   * Calls `method`; throws PlatformCallError on a non-ok answer, a timeout or a dropped connection.
   * `params` as FormData is sent as multipart/form-data (a file upload).
   */
  async call<T>(
    method: string,
    params: Record<string, unknown> | FormData,
    signal?: AbortSignal,
    timeoutMs?: number,
    headers?: Record<string, string>,
  ): Promise<T> {
    const body = await this.#client.json<ApiBody>(method, `${this.#base}/${method}`, {
      method: "POST",
      body: params,
      ...(signal ? { signal } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(headers ? { headers } : {}),
      ...(REPEATABLE.has(method) ? { repeatable: true } : {}),
    });
    return body.result as T;
  }
}

/**
 * Telegram's own codes on top of the shared defaults: a 404 means the token in the URL path is
 * malformed (every method exists), so it is a credentials problem, not a missing chat (that is 400).
 */
export const telegramRule: PlatformRule = (facts) =>
  facts.status === 404 ? { kind: "credentials" } : undefined;

/** The outbox's error for a failed Bot API call (429 waits `retry_after`, 401/404 stop the gateway). */
export function sendFailureOf(err: PlatformCallError, envVar: string): GatewaySendError {
  return err.toSendError({ envVar, platformRule: telegramRule });
}
