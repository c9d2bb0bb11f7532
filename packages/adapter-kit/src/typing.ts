// A typing indicator the platform shows only for a few seconds (Telegram 5 s, Discord 10 s), so it
// is sent again until the reply goes out. Each thread's run carries its own deadline: a newer turn's
// typing replaces an older one, and an expired one ends by itself (no reply may ever come).
import type { Logger } from "pino";
import type { GatewayScheduler } from "./scheduler.js";

export interface TypingRepeatOptions {
  /** How often the indicator is sent again. */
  intervalMs: number;
  /** When the repeats give up if no reply stopped them. */
  maxMs: number;
  now?: () => number;
}

export class TypingRepeat {
  readonly #until = new Map<string, number>();
  readonly #options: TypingRepeatOptions;

  constructor(options: TypingRepeatOptions) {
    this.#options = options;
  }

  /** How many threads' indicator is being repeated (diagnostics; entries end at the reply or expiry). */
  get size(): number {
    return this.#until.size;
  }

  /**
   * Sends the indicator now (a short turn may be over before a timer fires) and schedules the
   * repeats as the task `typing:<thread>`. A failed send is logged at debug and retried next beat.
   */
  async start(
    ctx: { scheduler: GatewayScheduler; logger: Logger },
    thread: string,
    send: (signal: AbortSignal) => Promise<unknown> | undefined,
  ): Promise<void> {
    const now = this.#options.now ?? Date.now;
    const until = now() + this.#options.maxMs;
    this.#until.set(thread, until);
    const beat = async (signal: AbortSignal) => {
      if (this.#until.get(thread) !== until) return null;
      if (now() > until) {
        this.#until.delete(thread);
        return null;
      }
      try {
        await send(signal);
      } catch (err) {
        ctx.logger.debug({ err }, "typing indicator failed");
      }
      return this.#options.intervalMs;
    };
    const next = await beat(new AbortController().signal);
    if (next !== null && this.#until.get(thread) === until)
      ctx.scheduler.schedule(`typing:${thread}`, next, beat);
  }

  /** Ends the thread's repeats (its reply is going out). */
  stop(scheduler: GatewayScheduler | undefined, thread: string): void {
    if (this.#until.delete(thread)) scheduler?.cancel(`typing:${thread}`);
  }

  /** Ends every thread's repeats (the gateway stops). */
  stopAll(scheduler: GatewayScheduler | undefined): void {
    for (const thread of this.#until.keys()) scheduler?.cancel(`typing:${thread}`);
    this.#until.clear();
  }
}
