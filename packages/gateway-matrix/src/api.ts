// The client-server API on the kit's PlatformApi (bearer token, JSON both ways). Errors are the
// standard error response (https://spec.matrix.org/latest/client-server-api/#standard-error-response):
// `errcode`, `error`, and `retry_after_ms` with M_LIMIT_EXCEEDED (#rate-limiting).
import { type FailureFacts, PlatformApi } from "@agentsvc/adapter-kit";

function bodyFailure(body: unknown, status: number): FailureFacts | undefined {
  const b = body as { errcode?: string; error?: string; retry_after_ms?: number };
  if (status < 400 || !b.errcode) return undefined;
  return {
    detail: `${b.errcode}${b.error ? `: ${b.error}` : ""}`,
    ...(typeof b.retry_after_ms === "number" ? { retryAfterMs: b.retry_after_ms } : {}),
  };
}

export function matrixApi(homeserverUrl: string, token: string, envVar: string, timeoutMs: number) {
  const baseUrl = `${homeserverUrl.replace(/\/+$/, "")}/_matrix/client/v3`;
  return new PlatformApi({ platform: "matrix", baseUrl, token, envVar, timeoutMs, bodyFailure });
}
