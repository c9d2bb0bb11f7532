// The classifier: whatever a model call threw (or sent as a stream `error` part) becomes one
// TurnError with a message a person can act on, the provider's own text kept apart in `detail`,
// and whether another attempt may succeed. Status codes and error types follow the providers'
// documented errors:
// - OpenAI https://platform.openai.com/docs/guides/error-codes (429 rate limit / `insufficient_quota`,
//   503 `server_is_overloaded`, 400 `context_length_exceeded` "This model's maximum context length is ...")
// - Anthropic https://docs.claude.com/en/api/errors (400 "prompt is too long: N tokens > M maximum",
//   413 `request_too_large`, 429 `rate_limit_error`, 529 `overloaded_error`, also as an SSE `error` event)
// - Gemini https://ai.google.dev/gemini-api/docs/troubleshooting (400 INVALID_ARGUMENT "The input
//   token count (N) exceeds the maximum number of tokens allowed (M)", 429 RESOURCE_EXHAUSTED,
//   503 UNAVAILABLE "The model is overloaded")
// - others' documented texts: Mistral/vLLM/DeepSeek/OpenRouter "maximum context length", xAI
//   "maximum prompt length is", Bedrock ValidationException "Input is too long for requested model",
//   Hugging Face TGI 422 "`inputs` tokens + `max_new_tokens` must be <= N".
import { APICallError } from "@ai-sdk/provider";
import type { ProviderStreamError } from "@ai-sdk/provider-utils";
import type { TurnError } from "./model-error.js";

/** A classified failure of one model attempt, thrown through the retry loop. */
export class ModelCallError extends Error {
  constructor(
    readonly error: TurnError,
    /** Another attempt (after a pause) may succeed. */
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(error.message, options);
    this.name = "ModelCallError";
  }
}

export interface ClassifyContext {
  /** The key's environment variable, named in `auth` errors. */
  envVar?: string;
  /** The run was cancelled (its signal aborted): whatever the error says, it is `cancelled`. */
  cancelled?: boolean;
  /** The attempt's own timer aborted it after this many ms without a stream part. */
  timedOutAfterMs?: number;
  /** Clock for `retry-after` HTTP dates (tests). */
  now?: number;
}

/** What one error says about itself, whatever its shape. */
interface Facts {
  status?: number;
  type?: string;
  code?: string;
  text?: string;
  headers?: Record<string, string>;
  isRetryable?: boolean;
  /** Gemini's google.rpc.RetryInfo `retryDelay` in the error body. */
  retryDelayMs?: number;
  malformed?: boolean;
  network?: boolean;
}

const CONTEXT_SIGNAL =
  /context_length_exceeded|maximum context length|context length|context window|prompt is too long|input is too long|input token count.*exceeds|maximum prompt length|max_new_tokens` must be|request_too_large|too many input tokens/i;
/** Gemini answers a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID (not 401). */
const KEY_SIGNAL = /API_KEY_INVALID|API key not valid|invalid[_ ]api[_ ]key|incorrect api key/i;
const OVERLOADED_SIGNAL = /overloaded/i;
const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const MALFORMED_NAMES = new Set([
  "AI_TypeValidationError",
  "AI_JSONParseError",
  "AI_InvalidResponseDataError",
  "AI_EmptyResponseBodyError",
]);
/**
 * @ai-sdk/anthropic 4.x throws a plain Error with this text (the parse error dropped) when the
 * stream's first event cannot be read.
 */
const UNREADABLE_FIRST_EVENT = /^Expected a normalized Anthropic stream error$/;
const DETAIL_LIMIT = 500;

/** Classifies a thrown error or a stream `error` part's payload. */
export function classifyModelError(error: unknown, context: ClassifyContext = {}): ModelCallError {
  if (error instanceof ModelCallError) return error;
  const make = (turnError: TurnError, retryable: boolean) =>
    new ModelCallError(withoutUndefined(turnError), retryable, { cause: error });
  if (context.cancelled) return make({ code: "cancelled", message: "The run was cancelled." }, false);
  if (context.timedOutAfterMs !== undefined || nameOf(error) === "TimeoutError") {
    const seconds = context.timedOutAfterMs === undefined ? undefined : seconds1(context.timedOutAfterMs);
    return make(
      {
        code: "timeout",
        message: `The model did not answer${seconds ? ` within ${seconds} s` : " in time"}; try again.`,
      },
      true,
    );
  }
  if (nameOf(error) === "AbortError")
    return make({ code: "cancelled", message: "The run was cancelled." }, false);

  const facts = factsOf(error);
  const { status } = facts;
  const detail = facts.text;
  const signals = [facts.type, facts.code, facts.text].filter(Boolean).join(" ");
  const retryAfterMs =
    (facts.headers ? retryAfter(facts.headers, context.now ?? Date.now()) : undefined) ?? facts.retryDelayMs;
  const base = { detail, statusCode: status };

  if (status === 429 || facts.type === "rate_limit_error" || facts.code === "rate_limit_exceeded") {
    // OpenAI's spent quota (`insufficient_quota`): waiting does not refill it. (Gemini's ordinary
    // 429 RESOURCE_EXHAUSTED also says "exceeded your current quota": that one is a rate limit.)
    if (facts.type === "insufficient_quota" || facts.code === "insufficient_quota") {
      return make(
        {
          ...base,
          code: "rate_limited",
          message:
            "The model provider's quota or credit for this API key is used up; check the account's plan and billing.",
        },
        false,
      );
    }
    const when =
      retryAfterMs === undefined ? "shortly" : `in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s`;
    return make(
      {
        ...base,
        code: "rate_limited",
        message: `The model provider is rate limiting requests; try again ${when}.`,
        retryAfterMs,
      },
      true,
    );
  }
  if (
    status === 529 ||
    status === 503 ||
    facts.type === "overloaded_error" ||
    (status === undefined && OVERLOADED_SIGNAL.test(signals))
  ) {
    return make(
      {
        ...base,
        code: "overloaded",
        message: "The model provider is overloaded right now; try again in a moment.",
        retryAfterMs,
      },
      true,
    );
  }
  if (
    status === 401 ||
    status === 403 ||
    facts.type === "authentication_error" ||
    facts.type === "permission_error" ||
    (status === 400 && KEY_SIGNAL.test(signals))
  ) {
    const where = context.envVar ? `check ${context.envVar}` : "check the model's API key";
    return make(
      {
        ...base,
        code: "auth",
        message: `The model provider refused the API key${status ? ` (HTTP ${status})` : ""}; ${where}.`,
        envVar: context.envVar,
      },
      false,
    );
  }
  if (
    status === 413 ||
    ((status === 400 || status === 422 || status === undefined) && CONTEXT_SIGNAL.test(signals))
  ) {
    return make({ ...base, code: "context_length", message: CONTEXT_LENGTH_MESSAGE }, false);
  }
  if (status === 408) {
    return make({ ...base, code: "timeout", message: "The model provider timed out; try again." }, true);
  }
  if (status !== undefined && status >= 400 && status < 500 && status !== 409) {
    return make(
      { ...base, code: "bad_request", message: `The model provider refused the request (HTTP ${status}).` },
      false,
    );
  }
  if (status !== undefined) {
    return make(
      { ...base, code: "model_error", message: `The model provider failed (HTTP ${status}); try again.` },
      true,
    );
  }
  if (facts.malformed) {
    return make(
      { ...base, code: "model_error", message: "The model provider sent a reply that could not be read." },
      true,
    );
  }
  if (facts.network) {
    return make(
      { ...base, code: "model_error", message: "The connection to the model provider failed; try again." },
      true,
    );
  }
  // Anything else (an Error a provider or a custom model threw): retried only when it says so,
  // as the AI SDK's own retries do.
  return make(
    { ...base, code: "model_error", message: "The model call failed; try again." },
    facts.isRetryable === true,
  );
}

/** The message of a context_length failure that compaction could not fix. */
const CONTEXT_LENGTH_MESSAGE = "This conversation is too long for the model; start a new one or clear it.";

/**
 * When the provider says a retry may succeed: `retry-after-ms` (OpenAI's, milliseconds), else
 * `retry-after` (RFC 9110: seconds, or an HTTP date). Undefined when neither is usable.
 */
export function retryAfter(headers: Record<string, string>, now: number): number | undefined {
  const header = (name: string) => {
    for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value.trim();
    return undefined;
  };
  const ms = header("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  const after = header("retry-after");
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.round(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function factsOf(error: unknown): Facts {
  if (APICallError.isInstance(error)) {
    const fromBody = bodyFacts(error.data ?? parseJson(error.responseBody));
    return {
      ...fromBody,
      status: error.statusCode ?? fromBody.status,
      headers: error.responseHeaders,
      text: fromBody.text ?? clip(error.message),
      isRetryable: error.isRetryable,
      network: error.statusCode === undefined,
    };
  }
  if (isStreamError(error)) {
    return {
      status: error.statusCode,
      type: error.type,
      code: error.code === undefined ? undefined : String(error.code),
      text: clip(error.message),
      isRetryable: error.isRetryable,
    };
  }
  if (error instanceof Error) {
    return {
      text: clip(error.message),
      malformed: MALFORMED_NAMES.has(error.name) || UNREADABLE_FIRST_EVENT.test(error.message),
      network: isNetworkError(error),
    };
  }
  // A raw error object in a stream `error` part (e.g. an OpenAI-compatible `{ error: {...} }` chunk).
  return bodyFacts(error);
}

/** type, code, status and message of a provider's error body: `{ error: { type, code, message } }`, `{ type, message }`. */
function bodyFacts(body: unknown): Facts {
  if (typeof body === "string") return { text: clip(body) };
  if (!isRecord(body)) return {};
  // `{ error: "text" }` (xAI, Hugging Face TGI and other OpenAI-compatible servers).
  if (typeof body.error === "string") return { text: clip(body.error) };
  const inner = isRecord(body.error) ? body.error : body;
  const str = (value: unknown) =>
    typeof value === "string" || typeof value === "number" ? String(value) : undefined;
  const message = str(inner.message);
  const numeric = typeof inner.code === "number" ? inner.code : undefined;
  return {
    // Gemini puts the HTTP status in `error.code` and its own name in `error.status`.
    type: str(inner.type) ?? str(inner.status),
    code: str(inner.code),
    status: numeric !== undefined && numeric >= 400 && numeric < 600 ? numeric : undefined,
    text: message === undefined ? undefined : clip(message),
    retryDelayMs: retryDelayOf(inner.details),
  };
}

/** `details: [{ "@type": ".../google.rpc.RetryInfo", retryDelay: "7s" }]` (Gemini's 429). */
function retryDelayOf(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const delay = isRecord(detail) ? detail.retryDelay : undefined;
    const match = typeof delay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

function isNetworkError(error: Error): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    if (current instanceof TypeError && /fetch failed|terminated|socket/i.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

function nameOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "name" in error && typeof error.name === "string"
    ? error.name
    : undefined;
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > DETAIL_LIMIT ? `${line.slice(0, DETAIL_LIMIT - 1)}…` : line;
}

function seconds1(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function withoutUndefined(error: TurnError): TurnError {
  const out = { ...error };
  for (const key of Object.keys(out) as (keyof TurnError)[]) if (out[key] === undefined) delete out[key];
  return out;
}

const STREAM_ERROR_MARKER = Symbol.for("vercel.ai.providerStreamError");

/**
 * provider-utils' isProviderStreamError: the same test of the marker its createProviderStreamError
 * sets (a global symbol, so every copy's errors carry it), without importing provider-utils, which
 * loads zod: about 20 MB and a tenth of a cold start that the demo model and a first answer never need.
 */
function isStreamError(error: unknown): error is ProviderStreamError {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[STREAM_ERROR_MARKER] === true
  );
}
