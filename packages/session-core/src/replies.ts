// A reply becomes outbox pieces: formatted for the platform first, then cut to its message limit.
import { chunkText } from "@agentsvc/adapter-kit";
import type { Gateway } from "./gateway.js";

export interface OutboxItem {
  gateway: string;
  thread: string;
  idemKey: string;
  kind: "text" | "approval" | "decided" | "file";
  payload: unknown;
}

/** Text pieces of one reply; `key` makes each piece's idempotency key (`<key>:<n>`). */
export function textPieces(
  gateway: Gateway,
  thread: string,
  text: string,
  key: string,
  meta?: Record<string, unknown>,
  requestId?: string,
): OutboxItem[] {
  const formatted = gateway.format ? gateway.format(text) : text;
  const pieces = gateway.chunk ? gateway.chunk(formatted) : chunkText(formatted, gateway.messageLimit);
  return pieces.map((piece, i) => ({
    gateway: gateway.name,
    thread,
    idemKey: `${key}:${i}`,
    kind: "text" as const,
    payload: { text: piece, ...(meta ? { meta } : {}), ...(requestId ? { requestId } : {}) },
  }));
}

/**
 * What a gateway user is told when the model failed, one line per code of the model layer. Never
 * the error's own message or detail: those may carry the provider's raw text (logs have it).
 */
const MODEL_FAILURES: Record<string, string> = {
  overloaded: "Sorry, the AI model is overloaded right now. Please try again in a few minutes.",
  timeout: "Sorry, the AI model took too long to answer. Please try again.",
  context_length:
    "Sorry, this conversation has grown too long for me to answer. Please send a shorter message or start a new conversation.",
  auth: "Sorry, I cannot reach my AI model right now (its key was refused). Please tell whoever runs this service.",
  bad_request: "Sorry, the AI model refused this request. Please try rewording it.",
  model_error: "Sorry, the AI model failed to answer. Please try again.",
};

/** Said after a reply the model stopped at its output limit, so it does not read as whole. */
const CUT_NOTE = "(The reply was cut off at the model's length limit.)";

/** The reply of a completed turn: its text, marked when the model stopped at its output limit. */
export function replyText(result: { text: string; finishReason?: string }): string {
  return result.finishReason === "length" && result.text ? `${result.text}\n\n${CUT_NOTE}` : result.text;
}

/** The reply to a message whose turn failed (a TurnError) or could not start (an AgentsvcError). */
export function failureText(err: unknown): string {
  const fields = err && typeof err === "object" ? (err as { code?: unknown; retryAfterMs?: unknown }) : {};
  const code = fields.code === undefined ? "error" : String(fields.code);
  if (code === "rate_limited") {
    const ms = typeof fields.retryAfterMs === "number" && fields.retryAfterMs > 0 ? fields.retryAfterMs : 0;
    const when =
      ms === 0
        ? "in a minute"
        : ms < 120_000
          ? `in ${Math.ceil(ms / 1000)} seconds`
          : `in ${Math.ceil(ms / 60_000)} minutes`;
    return `Sorry, the AI model is getting too many requests. Please try again ${when}.`;
  }
  if (code === "budget_exceeded") {
    const ms = typeof fields.retryAfterMs === "number" && fields.retryAfterMs > 0 ? fields.retryAfterMs : 0;
    const when =
      ms === 0
        ? "later"
        : ms < 2 * 3_600_000
          ? `in ${Math.ceil(ms / 60_000)} minutes`
          : `in ${Math.ceil(ms / 3_600_000)} hours`;
    return `Sorry, this service has used up its AI budget for now. Please try again ${when}.`;
  }
  return MODEL_FAILURES[code] ?? `Sorry, I could not answer this message (${code}).`;
}
