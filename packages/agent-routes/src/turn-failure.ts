import type { FinishReason, TurnError, TurnResult, Usage } from "@agentsvc/agent-core";

/** A failed turn's error as clients see it: the provider's own `detail` (and key names) stay in the logs. */
export interface PublicTurnError {
  code: string;
  message: string;
  retryAfterMs?: number;
  /** `budget_exceeded`: when the budget starts again (ISO 8601, UTC). */
  resetsAt?: string;
}

export function publicError(error: TurnError | undefined): PublicTurnError {
  if (!error) return { code: "internal_error", message: "the turn failed; see the server log" };
  const { code, message, retryAfterMs, resetsAt } = error;
  const out: PublicTurnError = { code, message };
  if (typeof retryAfterMs === "number" && retryAfterMs >= 0) out.retryAfterMs = retryAfterMs;
  if (typeof resetsAt === "string") out.resetsAt = resetsAt;
  return out;
}

/**
 * The HTTP status of `/invoke` for a failed turn, by code (README "Status codes"): what a client
 * can act on. The model's failures are the upstream's, not the caller's (502/503/504), except a
 * rate limit (429, retry later) and a conversation too long for the model (422, change the request).
 */
const STATUS: Record<string, number> = {
  rate_limited: 429,
  // A budget in agentsvc.config is spent: retry after it resets (Retry-After, resetsAt).
  budget_exceeded: 429,
  overloaded: 503,
  timeout: 504,
  context_length: 422,
  auth: 502,
  bad_request: 502,
  model_error: 502,
};

export function failedStatus(code: string): number {
  return STATUS[code] ?? 500;
}

/** `Retry-After` in whole seconds (rounded up), when the provider said when to retry. */
export function retryAfterSeconds(error: PublicTurnError): string | undefined {
  return error.retryAfterMs === undefined ? undefined : String(Math.ceil(error.retryAfterMs / 1000));
}

/** How the turn ended, beside its text: `finishReason` and the turn's summed `usage`, when known. */
export function ending(result: TurnResult): { finishReason?: FinishReason; usage?: Usage } {
  return {
    ...(result.finishReason ? { finishReason: result.finishReason } : {}),
    ...(result.usage ? { usage: result.usage } : {}),
  };
}
