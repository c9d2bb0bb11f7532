// Envelopes that wait for their acknowledgement: redelivered (retry_attempt + 1, a new envelope
// id) when not acknowledged in time, as Slack retries, and settled once acknowledged.
import { randomUUID } from "node:crypto";
import type { SlackEnvelope } from "./types.js";

interface Pending {
  envelope: SlackEnvelope;
  /** Key shared by every attempt of one delivery. */
  key: string;
  attempts: number;
  timer?: NodeJS.Timeout;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class EnvelopeTracker {
  readonly #pending = new Map<string, Pending>();
  /** Every envelope that went out, in order. */
  readonly sent: SlackEnvelope[] = [];
  readonly acked = new Set<string>();

  constructor(
    private readonly send: (envelope: SlackEnvelope) => boolean,
    private readonly ackTimeoutMs: number,
    private readonly maxRetries: number,
  ) {}

  /** Queues a delivery; resolves when any attempt is acknowledged, rejects when retries run out. */
  deliver(type: SlackEnvelope["type"], payload: Record<string, unknown>): Promise<void> {
    return this.deliverEnvelope({
      envelope_id: randomUUID(),
      type,
      payload,
      accepts_response_payload: type !== "events_api",
      retry_attempt: 0,
      retry_reason: "",
    });
  }

  /** Queues an envelope exactly as given (a recorded fixture); retries get new ids as usual. */
  deliverEnvelope(envelope: SlackEnvelope): Promise<void> {
    return new Promise((resolve, reject) => {
      const p: Pending = { envelope, key: envelope.envelope_id, attempts: 0, resolve, reject };
      this.#pending.set(envelope.envelope_id, p);
      this.flush();
    });
  }

  /** Sends every envelope not yet out (after a connection came up). */
  flush(): void {
    for (const p of this.#pending.values()) if (!p.timer) this.#attempt(p);
  }

  ack(envelopeId: string): boolean {
    const p = this.#pending.get(envelopeId);
    if (!p) return false;
    clearTimeout(p.timer);
    this.#pending.delete(envelopeId);
    this.acked.add(envelopeId);
    p.resolve();
    return true;
  }

  get unacknowledged(): SlackEnvelope[] {
    return [...this.#pending.values()].map((p) => p.envelope);
  }

  close(): void {
    for (const p of this.#pending.values()) clearTimeout(p.timer);
    this.#pending.clear();
  }

  #attempt(p: Pending): void {
    if (!this.send(p.envelope)) return; // no healthy connection: waits for flush()
    this.sent.push(p.envelope);
    p.attempts += 1;
    p.timer = setTimeout(() => {
      this.#pending.delete(p.envelope.envelope_id);
      if (p.attempts > this.maxRetries) {
        p.reject(new Error(`slack fake: envelope not acknowledged after ${p.attempts} attempts`));
        return;
      }
      // Slack retries an unacknowledged event as a new envelope carrying the retry count.
      p.envelope = {
        ...p.envelope,
        envelope_id: randomUUID(),
        retry_attempt: p.attempts,
        retry_reason: "timeout",
      };
      p.timer = undefined;
      this.#pending.set(p.envelope.envelope_id, p);
      this.#attempt(p);
    }, this.ackTimeoutMs);
  }
}
