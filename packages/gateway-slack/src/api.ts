// The Slack Web API client (https://api.slack.com/web): POST JSON with a bearer token, unwrap
// `{ ok, error }`. Failures go through the session's classifier with Slack's own codes first:
// `ratelimited`/429 waits `Retry-After` (https://api.slack.com/docs/rate-limits), a refused token
// is a credentials failure naming its variable, errors that can never succeed are permanent.
import {
  type FailureFacts,
  PlatformCallError,
  PlatformClient,
  type PlatformRule,
  sendFailure,
} from "@agentsvc/adapter-kit";

/** The token itself is refused (https://api.slack.com/methods/chat.postMessage#errors). */
const CREDENTIALS = new Set([
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
  "invalid_arguments",
  "restricted_action",
  "ekm_access_denied",
  "access_denied",
]);

export const slackRule: PlatformRule = (facts) => {
  const code = String(facts.code ?? "");
  if (CREDENTIALS.has(code)) return { kind: "credentials" };
  if (code === "ratelimited") return { kind: "retry" };
  if (PERMANENT.has(code)) return { kind: "permanent" };
  return undefined;
};

export interface Token {
  value: string;
  envVar: string;
}

/** Slack answers failures as `{ ok: false, error }`, mostly with HTTP 200 (https://api.slack.com/web#evaluating_responses). */
function bodyFailure(body: unknown, status: number): FailureFacts | undefined {
  const b = body as { ok?: boolean; error?: string };
  if (b.ok && status < 400) return undefined;
  return { code: b.error ?? `http_${status}` };
}

export class SlackWebApi {
  readonly #base: string;
  readonly #client: PlatformClient;

  constructor(apiBaseUrl: string, timeoutMs: number) {
    this.#base = apiBaseUrl.replace(/\/+$/, "");
    this.#client = new PlatformClient({ platform: "slack", timeoutMs, bodyFailure });
  }

  /**
   * Calls `method` with `token`; throws a classified GatewaySendError on failure. `form` sends the
   * params form-encoded (objects as JSON), for methods that take no JSON body (the files.* upload
   * methods, https://api.slack.com/methods/files.getUploadURLExternal).
   */
  async call<T extends Record<string, unknown>>(
    method: string,
    token: Token,
    params: Record<string, unknown> = {},
    signal?: AbortSignal,
    form = false,
  ): Promise<T> {
    try {
      return await this.#client.json<T>(method, `${this.#base}/${method}`, {
        method: "POST",
        headers: {
          "content-type": form ? "application/x-www-form-urlencoded" : "application/json; charset=utf-8",
          authorization: `Bearer ${token.value}`,
        },
        body: form ? formOf(params) : JSON.stringify(params),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (!(err instanceof PlatformCallError)) throw err;
      throw err.toSendError({ envVar: token.envVar, platformRule: slackRule });
    }
  }
}

function formOf(params: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined) form.set(k, typeof v === "string" ? v : JSON.stringify(v));
  return form.toString();
}

/**
 * The second step of an upload: the bytes POSTed to the `upload_url` files.getUploadURLExternal
 * answered (signed, no token; https://api.slack.com/messaging/files#upload). Anything but a 200 is
 * a failure the outbox retries (a new URL is asked for on the next try).
 */
export async function postUpload(url: string, bytes: Buffer, name: string, timeoutMs: number): Promise<void> {
  const how = { platform: "slack", call: "upload", platformRule: slackRule };
  let res: Response;
  try {
    const form = new FormData();
    form.set("file", new Blob([new Uint8Array(bytes)]), name);
    res = await fetch(url, { method: "POST", body: form, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw sendFailure({ network: true, detail: String(err) }, { ...how, cause: err });
  }
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw sendFailure({ status: res.status, retryAfter: res.headers.get("retry-after") }, how);
}
