// A minimal Slack Web API client: POST JSON with a bearer token, unwrap `{ ok, error }`, and
// turn 429 / `ok: false` into errors the outbox can act on.
import { GatewaySendError, retryAfterMs } from "@agentsvc/session-core";

/** Errors that never succeed on a retry. */
const PERMANENT = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "msg_too_long",
  "no_text",
  "invalid_blocks",
  "message_not_found",
  "cant_update_message",
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "missing_scope",
]);

export class SlackWebApi {
  readonly #base: string;

  constructor(
    apiBaseUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.#base = apiBaseUrl.replace(/\/+$/, "");
  }

  /** Calls `method` with `token`; throws GatewaySendError (retry-after, permanent) on failure. */
  async call<T extends Record<string, unknown>>(
    method: string,
    token: string,
    params: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${this.#base}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8", authorization: `Bearer ${token}` },
        body: JSON.stringify(params),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      throw new GatewaySendError(`slack ${method}: connection failed`, { cause: err });
    }
    if (res.status === 429) {
      throw new GatewaySendError(`slack ${method}: rate limited`, {
        status: 429,
        retryAfterMs: retryAfterMs(res.headers.get("retry-after")) ?? 1_000,
      });
    }
    const body = (await res.json().catch(() => ({ ok: false, error: `http_${res.status}` }))) as T & {
      ok?: boolean;
      error?: string;
    };
    if (res.ok && body.ok) return body;
    const error = body.error ?? `http_${res.status}`;
    throw new GatewaySendError(`slack ${method}: ${error}`, {
      status: res.status,
      permanent: PERMANENT.has(error),
    });
  }
}
