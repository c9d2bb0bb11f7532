// What the session tells an observer (the server's Prometheus metrics). Every hook is optional and
// called synchronously; label values passed are bounded (gateway names, fixed outcomes).

export type InboundOutcome = "accepted" | "duplicate";
/** How one send attempt ended: sent, put back for a retry, dead-lettered, or held (credentials). */
export type SendOutcome = "sent" | "retry" | "dead" | "held";

export interface SessionObserver {
  /** A gateway's inbound message was recorded, or was a repeat of one already recorded. */
  onInbound?(gateway: string, outcome: InboundOutcome): void;
  /** A send to the platform began (the sending gauge goes up until `onSent`). */
  onSending?(gateway: string): void;
  /** The send that began settled, after `seconds`. */
  onSent?(gateway: string, outcome: SendOutcome, seconds: number): void;
  /** A connection gateway re-established its platform connection after losing it. */
  onReconnected?(gateway: string): void;
}
