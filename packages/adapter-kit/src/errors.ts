// How an outbound call tells the outbox what to do next.

export interface GatewaySendErrorOptions {
  /** The platform asked to wait (429 `retry_after`, `Retry-After`): the next try is no earlier. */
  retryAfterMs?: number;
  /** Will never succeed (403, 404, a chat that is gone): the piece is dead-lettered at once. */
  permanent?: boolean;
  /**
   * The platform rejected the gateway's credentials (401, a revoked token): the piece stays pending and
   * the session stops this gateway until its configuration is fixed.
   */
  credentials?: boolean;
  /** The environment variable that holds the rejected credential, named in the error log. */
  envVar?: string;
  /** HTTP status, for the log. */
  status?: number;
  cause?: unknown;
}

// A registered symbol, not `instanceof`: an adapter may load its own copy of session-core.
const BRAND = Symbol.for("agentsvc.GatewaySendError");

/** Thrown by `send`, `requestDecision` or `onDecided` to steer the retry of one outbox piece. */
export class GatewaySendError extends Error {
  readonly [BRAND] = true;
  readonly retryAfterMs: number | undefined;
  readonly permanent: boolean;
  readonly credentials: boolean;
  readonly envVar: string | undefined;
  readonly status: number | undefined;

  constructor(message: string, options: GatewaySendErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = "GatewaySendError";
    this.retryAfterMs = options.retryAfterMs;
    this.permanent = options.permanent ?? false;
    this.credentials = options.credentials ?? false;
    this.envVar = options.envVar;
    this.status = options.status;
  }
}

/** Reads `Retry-After` (seconds or an HTTP date) into milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** True for a GatewaySendError from any copy of this package. */
export function isGatewaySendError(err: unknown): err is GatewaySendError {
  return typeof err === "object" && err !== null && (err as Record<symbol, unknown>)[BRAND] === true;
}
