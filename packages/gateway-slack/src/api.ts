// The Slack Web API client (https://api.slack.com/web): POST JSON with a bearer token, unwrap
// `{ ok, error }`. Failures are classified for the outbox: 429 waits `Retry-After`
// (https://api.slack.com/docs/rate-limits), a rejected token stops the gateway naming its variable.
import { GatewaySendError, retryAfterMs } from "@agentsvc/session-core";

/** Errors that mean the token itself is refused (https://api.slack.com/methods/chat.postMessage#errors). */
export const CREDENTIAL_ERRORS = new Set([
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "link_disabled",
]);

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
  "missing_scope",
]);

/** Slack's codes first; HTTP statuses as any platform's. */
export function slackFailure(facts: { status: number; code: string; retryAfter: string | null }): {
  kind: "retry" | "permanent" | "credentials";
  retryAfterMs?: number;
} {
  if (CREDENTIAL_ERRORS.has(facts.code)) return { kind: "credentials" };
  if (facts.status === 429 || facts.code === "ratelimited") {
    const wait = retryAfterMs(facts.retryAfter);
    return wait === undefined ? { kind: "retry" } : { kind: "retry", retryAfterMs: wait };
  }
  if (PERMANENT.has(facts.code)) return { kind: "permanent" };
  if (facts.status >= 500) return { kind: "retry" };
  if (facts.status >= 400) return { kind: "permanent" };
  return { kind: "retry" };
}

/** A failed Web API call: Slack's error code and how the outbox should treat it. */
export class SlackApiError extends GatewaySendError {
  readonly code: string;
  readonly credentials: boolean;
  readonly envVar: string;

  constructor(
    method: string,
    code: string,
    status: number,
    verdict: ReturnType<typeof slackFailure>,
    envVar: string,
  ) {
    const credentials = verdict.kind === "credentials";
    super(
      credentials ? `slack ${method} rejected the token in ${envVar} (${code})` : `slack ${method}: ${code}`,
      {
        status,
        permanent: verdict.kind === "permanent",
        ...(verdict.retryAfterMs !== undefined ? { retryAfterMs: verdict.retryAfterMs } : {}),
      },
    );
    this.code = code;
    this.credentials = credentials;
    this.envVar = envVar;
  }
}

export class SlackWebApi {
  readonly #base: string;

  constructor(
    apiBaseUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.#base = apiBaseUrl.replace(/\/+$/, "");
  }

  /** Calls `method` with `token`; throws a classified GatewaySendError on failure. */
  async call<T extends Record<string, unknown>>(
    method: string,
    token: { value: string; envVar: string },
    params: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${this.#base}/${method}`, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          authorization: `Bearer ${token.value}`,
        },
        body: JSON.stringify(params),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      throw new GatewaySendError(`slack ${method}: connection failed`, { cause: err });
    }
    const body = (await res.json().catch(() => ({}))) as T & { ok?: boolean; error?: string };
    if (res.ok && body.ok) return body;
    const code = body.error ?? `http_${res.status}`;
    const verdict = slackFailure({ status: res.status, code, retryAfter: res.headers.get("retry-after") });
    throw new SlackApiError(method, code, res.status, verdict, token.envVar);
  }
}
