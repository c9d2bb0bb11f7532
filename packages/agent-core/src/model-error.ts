/**
 * The failure of a model call as every surface reports it (SSE `error`, `/invoke` body, chat page,
 * gateway failure replies, logs, metrics). `message` is ours and safe to show a person; the
 * provider's own text is kept apart in `detail` and never shown raw to a chat user.
 */
export type ModelErrorCode =
  | "rate_limited"
  | "overloaded"
  | "context_length"
  | "auth"
  | "bad_request"
  | "timeout"
  | "cancelled"
  | "model_error";

/** Every failure a turn can end with: the model's, or the run loop's own. */
export type TurnErrorCode = ModelErrorCode | "max_steps" | "internal_error" | (string & {});

export interface TurnError {
  code: TurnErrorCode;
  /** What went wrong and what to do, in words a person can act on. */
  message: string;
  /** The provider's own text (status line, error body message), for logs and operators. */
  detail?: string;
  /** `rate_limited` / `overloaded`: when a retry may succeed (from `retry-after-ms`/`retry-after`). */
  retryAfterMs?: number;
  /** `auth`: the environment variable that holds the key. */
  envVar?: string;
  /** The provider's HTTP status, when there was one. */
  statusCode?: number;
  /** `budget_exceeded`: when the spent budget starts again (ISO 8601, UTC). */
  resetsAt?: string;
}

/** Why a model call ended, as the AI SDK reports it (`unknown` when the stream gave none). */
export type FinishReason =
  | "stop"
  | "length"
  | "content-filter"
  | "tool-calls"
  | "error"
  | "other"
  | "unknown";

/** Token usage of a turn or one model call (summed over a turn's calls). */
export interface Usage {
  /** The whole prompt: uncached, read from and written to the provider's cache, on every provider. */
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  /** The part of `inputTokens` read from the provider's prompt cache. */
  cachedInputTokens?: number;
  /** The part of `inputTokens` written to the provider's prompt cache (Anthropic bills it above input). */
  cacheWriteInputTokens?: number;
  totalTokens?: number;
}
