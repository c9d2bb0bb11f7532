// What a failed send of an outbox piece becomes: held (the platform rejected the gateway's
// credentials: the piece waits, its attempt not counted), dead (refused for good, or out of
// attempts: logged), or tried again after a backoff (the platform's retry-after honoured).
import { backoffDelay, type GatewaySendError, isGatewaySendError } from "@agentsvc/adapter-kit";
import type { Logger } from "pino";
import type { Gateway } from "./gateway.js";
import type { SendOutcome } from "./observer.js";
import type { OutboxRow, SessionStore } from "./store.js";
import type { TraceSpan } from "./trace.js";

export interface FailureDeps {
  store: SessionStore;
  loggerFor: (gateway: Gateway) => Logger;
  /** Gateways whose credentials were rejected: their pieces wait, unsent and uncounted. */
  held: Set<string>;
  onCredentials: ((gateway: Gateway, error: GatewaySendError) => void) | undefined;
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export async function failedSend(
  d: FailureDeps,
  gateway: Gateway,
  row: OutboxRow,
  attempt: number,
  err: unknown,
  span: TraceSpan,
): Promise<SendOutcome> {
  const logger = d.loggerFor(gateway);
  const message = err instanceof Error ? err.message : String(err);
  const sendError = isGatewaySendError(err) ? err : undefined;
  span.addEvent("send failed", { "exception.message": message });
  if (sendError?.status !== undefined) span.setAttribute("http.response.status_code", sendError.status);
  if (sendError?.retryAfterMs !== undefined)
    span.setAttribute("agentsvc.send.retry_after_ms", sendError.retryAfterMs);
  const context = {
    gateway: gateway.name,
    thread: row.thread,
    id: row.id,
    kind: row.kind,
    attempt,
    status: sendError?.status,
  };
  if (sendError?.credentials) {
    // Not the piece's fault: it stays pending with its attempts as they were.
    const first = !d.held.has(gateway.name);
    d.held.add(gateway.name);
    if (first) d.onCredentials?.(gateway, sendError);
    return "held";
  }
  if (sendError?.permanent || attempt >= d.maxAttempts) {
    await d.store.outbox.markDead(row.id, message);
    logger.error(
      { ...context, err: message },
      sendError?.permanent
        ? "outbox piece dead-lettered: the platform refused it for good"
        : `outbox piece dead-lettered after ${attempt} attempts`,
    );
    return "dead";
  }
  const backoff = backoffDelay(attempt, { baseMs: d.baseDelayMs, maxMs: d.maxDelayMs });
  const delay = Math.max(backoff, sendError?.retryAfterMs ?? 0);
  await d.store.outbox.markRetry(row.id, Date.now() + delay, message);
  logger.warn({ ...context, err: message, retryInMs: delay }, "sending failed; will retry");
  return "retry";
}
