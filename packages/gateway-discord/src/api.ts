// A minimal Discord REST client: `Authorization: Bot <token>`, JSON, and failures turned into
// errors the outbox can act on (429 retry_after, 4xx permanent).
import { GatewaySendError, retryAfterMs } from "@agentsvc/session-core";

export class DiscordRest {
  readonly #base: string;

  constructor(
    apiBaseUrl: string,
    private readonly token: string,
    private readonly timeoutMs: number,
  ) {
    this.#base = apiBaseUrl.replace(/\/+$/, "");
  }

  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          authorization: `Bot ${this.token}`,
          "user-agent": "DiscordBot (https://github.com/agentsvc, 0.1)",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      throw new GatewaySendError(`discord ${method} ${route(path)}: connection failed`, { cause: err });
    }
    if (res.status === 204) return undefined as T;
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.ok) return json as T;
    const message = `discord ${method} ${route(path)}: ${res.status} ${String(json.message ?? res.statusText)}`;
    if (res.status === 429) {
      const seconds = typeof json.retry_after === "number" ? json.retry_after : undefined;
      throw new GatewaySendError(message, {
        status: 429,
        retryAfterMs:
          seconds !== undefined
            ? Math.ceil(seconds * 1000)
            : (retryAfterMs(res.headers.get("retry-after")) ?? 1_000),
      });
    }
    throw new GatewaySendError(message, {
      status: res.status,
      permanent: res.status >= 400 && res.status < 500,
    });
  }
}

/** The path without ids or tokens, for logs. */
function route(path: string): string {
  return path.replace(/\/interactions\/\d+\/[^/]+/, "/interactions/:id/:token").replace(/\d{5,}/g, ":id");
}
