// A reply becomes outbox pieces: formatted for the platform first, then cut to its message limit.
import { chunkText } from "./chunk-text.js";
import type { Gateway } from "./gateway.js";

export interface OutboxItem {
  gateway: string;
  thread: string;
  idemKey: string;
  kind: "text" | "approval" | "decided";
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

export function failureText(err: unknown): string {
  const code =
    err && typeof err === "object" && "code" in err ? String((err as { code: unknown }).code) : "error";
  return `Sorry, I could not answer this message (${code}).`;
}
