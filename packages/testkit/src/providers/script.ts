// What a test scripts a provider fake to do with one request, in words no provider owns: each
// format module renders an answer into its own stream and a fault into its own error body.

/** One tool call of a scripted answer; `arguments` are the JSON fragments streamed in order. */
export interface ScriptedToolCall {
  /** Default: a fresh id in the provider's own style (`call_…`, `toolu_…`). */
  id?: string;
  name: string;
  arguments: string[];
}

/** How the answer ends, in the provider's terms on the wire (`length` is `max_tokens`, `MAX_TOKENS`). */
export type ScriptedFinish = "stop" | "length" | "tool_calls" | "content_filter";

/** A normal answer: reasoning, then text, then tool calls, each as the deltas streamed. */
export interface ScriptedAnswer {
  reasoning?: string[];
  /** Anthropic: the signature sent after the thinking deltas (one is made up when absent). */
  signature?: string;
  /** Anthropic: a `redacted_thinking` block with this data before everything else. */
  redactedThinking?: string;
  text?: string[];
  toolCalls?: ScriptedToolCall[];
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finish?: ScriptedFinish;
  /**
   * Default: input from the request's size, output from the deltas streamed, and the cached share
   * of the input as the provider's prompt cache would have it (prompt-cache.ts). `input` is the whole
   * prompt, cached part included; with `input` scripted, nothing is cached unless `cached` is too.
   * `cached`: tokens read from the cache (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`);
   * `cacheWrite`: Anthropic's `cache_creation_input_tokens`.
   */
  usage?: { input?: number; output?: number; reasoning?: number; cached?: number; cacheWrite?: number };
}

/**
 * A failure the fake answers instead of (or in the middle of) the answer. Refusals before the
 * stream carry the provider's own status and body; `afterTokens` counts streamed deltas.
 */
export type ScriptedFault =
  /** 429; `retry-after` (seconds) and/or `retry-after-ms` headers; `retry-after: 1` when neither is given. */
  | { kind: "rate_limited"; retryAfterSeconds?: number; retryAfterMs?: number }
  /** The provider's "overloaded": Anthropic 529 `overloaded_error`, OpenAI 503, Gemini 503 UNAVAILABLE. */
  | { kind: "overloaded" }
  | { kind: "server_error" }
  | { kind: "unavailable" }
  /** The provider's documented 400 for a prompt longer than the model's context window. */
  | { kind: "context_length" }
  /** The provider's error event in an open stream (Anthropic `event: error` `overloaded_error`). */
  | { kind: "stream_error"; afterTokens?: number }
  /** One chunk that is not JSON, then the rest of the stream. */
  | { kind: "malformed"; afterTokens?: number }
  /**
   * The socket destroyed: `before-head` (no response at all), `before-first-token` (the stream's
   * preamble sent, no delta), `after-first-token` (one delta sent).
   */
  | { kind: "drop"; when: "before-head" | "before-first-token" | "after-first-token" };

export interface ScriptedStep extends ScriptedAnswer {
  fault?: ScriptedFault;
  /** Wait this long before sending the response head (a slow provider). */
  headDelayMs?: number;
  /** Wait this long before every delta (lets a test cancel mid-stream). */
  tokenDelayMs?: number;
  /** Replay these recorded events as the whole stream instead of rendering the answer. */
  transcript?: RecordedEvent[];
}

/** One server-sent event of a recorded stream: `data` is JSON, or a literal such as `[DONE]`. */
export interface RecordedEvent {
  event?: string;
  data: unknown;
}

/** What the fake saw of one request, kept in arrival order. */
export interface RecordedRequest {
  index: number;
  method: string;
  /** Path and query, as sent. */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
  /** The status answered (200 for a stream), or 0 when the socket was destroyed before a head. */
  status: number;
  /** Settles when the response is over: `complete`, `client-closed` (the client hung up first), `refused`, `dropped`. */
  outcome: Promise<RequestOutcome>;
}

export type RequestOutcome = "complete" | "client-closed" | "refused" | "dropped";
