// The Discord REST client: `Authorization: Bot <token>`, JSON, and every failure classified by
// session-core's one classifier (401 credentials, 429/5xx/network retry, other 4xx permanent).
// Discord's own part: a 429 names its wait in the body as float seconds, `retry_after`, which is
// more precise than the whole-second `Retry-After` header
// (https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit).
import { sendFailure } from "@agentsvc/adapter-kit";

export class DiscordRest {
  readonly #base: string;

  readonly #token: string;
  readonly #timeoutMs: number;
  /** The variable holding the token, named when Discord rejects it. */
  readonly #envVar: string;

  constructor(apiBaseUrl: string, token: string, timeoutMs: number, envVar: string) {
    this.#base = apiBaseUrl.replace(/\/+$/, "");
    this.#token = token;
    this.#timeoutMs = timeoutMs;
    this.#envVar = envVar;
  }

  /** `body` as FormData goes as multipart/form-data (a message with files); anything else as JSON. */
  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const call = `${method} ${route(path)}`;
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          authorization: `Bot ${this.#token}`,
          "user-agent": "DiscordBot (https://github.com/agentsvc, 0.1)",
          ...(body === undefined || body instanceof FormData ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      throw sendFailure({ network: true, detail: String(err) }, { platform: "discord", call, cause: err });
    }
    if (res.status === 204) return undefined as T;
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.ok) return json as T;
    throw sendFailure(
      {
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        ...(typeof json.retry_after === "number" ? { retryAfterMs: Math.ceil(json.retry_after * 1000) } : {}),
        ...(typeof json.code === "number" && json.code !== 0 ? { code: json.code } : {}),
        detail: String(json.message ?? res.statusText),
      },
      { platform: "discord", call, envVar: this.#envVar },
    );
  }
}

/** The path without ids or tokens, for logs. */
function route(path: string): string {
  return path.replace(/\/interactions\/\d+\/[^/]+/, "/interactions/:id/:token").replace(/\d{5,}/g, ":id");
}
