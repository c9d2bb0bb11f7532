// The session's work in flight (ingest scheduling, decisions, suspensions): kept visible so
// `idle()` and `stop()` can wait for it; a failure is logged, never unhandled.
import type { Logger } from "pino";
import type { SessionParts } from "./parts.js";

export class SessionWork {
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(private readonly logger: Logger) {}

  track(work: Promise<unknown>): void {
    const p = work.catch((err) => {
      this.logger.error({ err }, "session work failed");
    });
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p));
  }

  /** Resolves once no turn is running, nothing runnable is queued and the outbox has nothing due (suspended turns wait for a human). */
  async idle(parts: SessionParts, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await Promise.allSettled([...this.#inflight, ...parts.threads.pending()]);
      await parts.sender.settled();
      const busy = [...parts.threads.all()].some(
        (s) => s.active?.phase === "running" || (!s.active && s.queue.length > 0),
      );
      const due = await parts.sender.hasDue();
      if (!busy && !due && this.#inflight.size === 0) return;
      if (Date.now() > deadline) throw new Error(`GatewaySession.idle: still busy after ${timeoutMs} ms`);
      if (due) parts.sender.wake();
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Waits for the work in flight and the sender, at most `timeoutMs`. */
  async settle(parts: SessionParts, timeoutMs: number): Promise<void> {
    const timeout = new Promise((r) => setTimeout(r, timeoutMs).unref());
    await Promise.race([
      (async () => {
        await Promise.allSettled([...this.#inflight, ...parts.threads.pending()]);
        await parts.sender.settled();
      })(),
      timeout,
    ]);
  }
}
