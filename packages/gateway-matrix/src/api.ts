// A client-server API client on the kit's PlatformClient: `Authorization: Bearer`, JSON both ways.
// Errors are the standard error response (https://spec.matrix.org/latest/client-server-api/#standard-error-response):
// `errcode`, `error`, and `retry_after_ms` with M_LIMIT_EXCEEDED (#rate-limiting).
import {
  type FailureFacts,
  type GatewaySendError,
  type PlatformCallError,
  PlatformClient,
} from "@agentsvc/adapter-kit";

interface ErrorBody {
  errcode?: string;
  error?: string;
  retry_after_ms?: number;
}

function bodyFailure(body: unknown, status: number): FailureFacts | undefined {
  const b = body as ErrorBody;
  if (status < 400 || !b.errcode) return undefined;
  return {
    detail: `${b.errcode}${b.error ? `: ${b.error}` : ""}`,
    ...(typeof b.retry_after_ms === "number" ? { retryAfterMs: b.retry_after_ms } : {}),
  };
}

export class MatrixApi {
  readonly #base: string;
  readonly #token: string;
  readonly #client: PlatformClient;

  constructor(homeserverUrl: string, token: string, timeoutMs: number) {
    this.#base = `${homeserverUrl.replace(/\/+$/, "")}/_matrix/client/v3`;
    this.#token = token;
    this.#client = new PlatformClient({ platform: "matrix", timeoutMs, bodyFailure });
  }

  call<T>(
    call: string,
    method: "GET" | "PUT",
    path: string,
    o: { body?: unknown; signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<T> {
    return this.#client.json<T>(call, `${this.#base}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.#token}` },
      ...(o.body !== undefined ? { body: o.body } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    });
  }
}

/** The outbox's error for a failed call (429 waits `retry_after_ms`, 401 stops the gateway). */
export function sendFailureOf(err: PlatformCallError, envVar: string): GatewaySendError {
  return err.toSendError({ envVar });
}
