// The daemon's events stream: one long-lived GET of /api/v1/events, reopened with exponential
// backoff (2 s..60 s, +20% jitter) and by an idle watchdog when neither events nor keepalives arrive
// for 120 s. signal-cli's events carry no ids and it replays nothing, so each event is handed on
// and fully handled (recorded) before the next is read: the stream is the only copy.
import {
  Backoff,
  type BackoffOptions,
  backoffDelay,
  DeafWatch,
  type GatewayContext,
} from "@agentsvc/adapter-kit";
import { readSse } from "./sse.js";

/** Reconnect backoff of the spec: 2 s doubling to 60 s, plus up to 20% jitter. */
export const SIGNAL_RECONNECT: Required<Pick<BackoffOptions, "baseMs" | "maxMs" | "jitter">> = {
  baseMs: 2_000,
  maxMs: 60_000,
  jitter: 0.2,
};
export const SIGNAL_WATCHDOG = { checkMs: 30_000, idleMs: 120_000 };

/** Delay before reconnect number `attempt` (1 = first), with the spec's bounds. */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  return backoffDelay(attempt, { ...SIGNAL_RECONNECT, random });
}

export interface EventStreamOptions {
  baseUrl: string;
  account: string;
  reconnect?: BackoffOptions;
  watchdog?: { checkMs?: number; idleMs?: number };
  /** The entry's `deafAfter` in ms: the stream open (keepalives coming) but no message for that long -> reopened. */
  deafAfterMs?: number;
  now?: () => number;
  fetch?: typeof fetch;
}

/** One `receive` event's data; resolves once it is handled, and only then is the next one read. */
export type ReceiveHandler = (data: string, signal: AbortSignal) => Promise<void>;

export class EventStream {
  readonly #options: EventStreamOptions;
  readonly #backoff: Backoff;
  readonly #checkMs: number;
  readonly #idleMs: number;
  readonly #now: () => number;
  readonly #fetch: typeof fetch;
  #context: GatewayContext | undefined;
  #controller: AbortController | undefined;
  #lastActivity = 0;
  #open = false;
  /** Set at the first open stream; every later open is a reconnect. */
  #openedOnce = false;
  #handling = false;
  #stopped = true;
  #deaf: DeafWatch | undefined;

  constructor(options: EventStreamOptions) {
    this.#options = options;
    this.#backoff = new Backoff({ ...SIGNAL_RECONNECT, ...options.reconnect });
    this.#checkMs = options.watchdog?.checkMs ?? SIGNAL_WATCHDOG.checkMs;
    this.#idleMs = options.watchdog?.idleMs ?? SIGNAL_WATCHDOG.idleMs;
    this.#now = options.now ?? Date.now;
    this.#fetch = options.fetch ?? fetch;
  }

  /** True while an events stream is open. */
  get connected(): boolean {
    return this.#open;
  }

  start(context: GatewayContext, onReceive: ReceiveHandler): void {
    this.#context = context;
    this.#stopped = false;
    context.scheduler.schedule("events", 0, (signal) => this.#connectOnce(signal, onReceive));
    context.scheduler.every("watchdog", this.#checkMs, () => this.#watch());
    const afterMs = this.#options.deafAfterMs;
    if (afterMs === undefined) return;
    // Keepalives say the stream is up; only messages say it hears (the idle watchdog counts both).
    const deaf = new DeafWatch({
      afterMs,
      logger: context.logger,
      connection: "the signal-cli events stream",
      reconnect: () => this.#controller?.abort(new Error("deafAfter: no message while the stream was up")),
      now: this.#now,
    });
    this.#deaf = deaf;
    context.scheduler.every("deaf-watch", deaf.checkEveryMs, () => {
      deaf.check(this.#open && !this.#handling);
    });
  }

  stop(): void {
    this.#stopped = true;
    this.#context?.scheduler.cancel("events");
    this.#context?.scheduler.cancel("watchdog");
    this.#context?.scheduler.cancel("deaf-watch");
    this.#controller?.abort(new Error("gateway stopped"));
    this.#controller = undefined;
  }

  /** One connection: open the stream, read it to its end, and return the delay before the next one. */
  async #connectOnce(signal: AbortSignal, onReceive: ReceiveHandler): Promise<number | null> {
    const ctx = this.#context;
    if (this.#stopped || !ctx) return null;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    this.#controller = controller;
    const { baseUrl, account } = this.#options;
    const url = `${baseUrl}/api/v1/events?account=${encodeURIComponent(account)}`;
    try {
      const res = await this.#fetch(url, {
        headers: { accept: "text/event-stream" },
        signal: controller.signal,
      });
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        throw new Error(`the events stream answered HTTP ${res.status}`);
      }
      this.#lastActivity = this.#now();
      this.#open = true;
      this.#backoff.reset();
      ctx.logger.info({ url: baseUrl }, "signal-cli events stream open");
      if (this.#openedOnce) ctx.reconnected?.();
      this.#openedOnce = true;
      ctx.platformCallSucceeded?.();
      this.#deaf?.heard();
      await readSse(res.body, {
        activity: () => {
          this.#lastActivity = this.#now();
        },
        event: async (event) => {
          if (event.event !== "receive" || this.#stopped || controller.signal.aborted) return;
          ctx.heard?.();
          this.#deaf?.heard();
          this.#handling = true;
          try {
            await onReceive(event.data, controller.signal);
          } finally {
            this.#handling = false;
            this.#lastActivity = this.#now();
          }
        },
      });
      if (!this.#stopped) ctx.logger.warn("signal-cli events stream ended; reconnecting");
    } catch (err) {
      if (this.#stopped) return null;
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      ctx.logger.warn(
        { err: reason instanceof Error ? reason.message : String(reason), url: baseUrl },
        "signal-cli events stream failed or unreachable; reconnecting with backoff",
      );
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (this.#controller === controller) this.#controller = undefined;
      this.#open = false;
    }
    if (this.#stopped) return null;
    const delay = this.#backoff.next();
    ctx.logger.info({ attempt: this.#backoff.attempt, delayMs: delay }, "signal-cli reconnect scheduled");
    return delay;
  }

  #watch(): void {
    const controller = this.#controller;
    // An event being handled (a record waiting for the store) is not silence: dropping the
    // stream now would lose the events behind it.
    if (!controller || !this.#open || this.#handling) return;
    const idle = this.#now() - this.#lastActivity;
    if (idle < this.#idleMs) return;
    this.#context?.logger.warn(
      { idleMs: idle, limitMs: this.#idleMs },
      "signal-cli events stream silent (no events or keepalives); reconnecting",
    );
    controller.abort(new Error(`no events or keepalives for ${idle} ms`));
  }
}
