// The Discord REST client on adapter-kit's PlatformClient: `Authorization: Bot <token>`, JSON, and
// every failure classified by the kit's one classifier (401 credentials, 429/5xx/network retry, other
// 4xx permanent). Discord's own part: a 429 names its wait in the body as float seconds,
// `retry_after`, which is more precise than the whole-second `Retry-After` header
// (https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit), and an error body
// carries `code` and `message` (https://discord.com/developers/docs/reference#error-messages).
import { type FailureFacts, PlatformCallError, PlatformClient } from "@agentsvc/adapter-kit";

function bodyFailure(body: unknown, status: number): FailureFacts | undefined {
  if (status < 400) return undefined;
  const b = body as { retry_after?: unknown; code?: unknown; message?: unknown };
  return {
    ...(typeof b.retry_after === "number" ? { retryAfterMs: Math.ceil(b.retry_after * 1000) } : {}),
    ...(typeof b.code === "number" && b.code !== 0 ? { code: b.code } : {}),
    ...(typeof b.message === "string" ? { detail: b.message } : {}),
  };
}

export class DiscordRest {
  readonly #base: string;
  readonly #token: string;
  readonly #client: PlatformClient;
  /** The variable holding the token, named when Discord rejects it. */
  readonly #envVar: string;

  constructor(apiBaseUrl: string, token: string, timeoutMs: number, envVar: string) {
    this.#base = apiBaseUrl.replace(/\/+$/, "");
    this.#token = token;
    this.#client = new PlatformClient({ platform: "discord", timeoutMs, bodyFailure });
    this.#envVar = envVar;
  }

  /** `body` as FormData goes as multipart/form-data (a message with files); anything else as JSON. */
  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      return await this.#client.json<T>(`${method} ${route(path)}`, `${this.#base}${path}`, {
        method,
        headers: {
          authorization: `Bot ${this.#token}`,
          "user-agent": "DiscordBot (https://github.com/agentsvc, 0.1)",
        },
        ...(body === undefined ? {} : { body }),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (!(err instanceof PlatformCallError)) throw err;
      throw err.toSendError({ envVar: this.#envVar });
    }
  }
}

/** The path without ids or tokens, for logs. */
function route(path: string): string {
  return path.replace(/\/interactions\/\d+\/[^/]+/, "/interactions/:id/:token").replace(/\d{5,}/g, ":id");
}
