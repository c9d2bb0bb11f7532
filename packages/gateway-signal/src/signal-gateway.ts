// The Signal gateway: a client of a signal-cli daemon the operator runs (`signal-cli -a <number>
// daemon --http=127.0.0.1:8080`). Inbound is one long-lived GET of /api/v1/events; outbound is
// JSON-RPC `send`. The stream is reopened with exponential backoff (2 s..60 s, +20% jitter) and
// an idle watchdog reopens it when neither events nor keepalives arrive for 120 s.
import {
  Backoff,
  type BackoffOptions,
  backoffDelay,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type SendOptions,
  type SendResult,
} from "@agentsvc/session-core";
import { classify } from "./envelope.js";
import { callRpc } from "./rpc.js";
import { readSse, type SseEvent } from "./sse.js";

export const SIGNAL_DEFAULT_HTTP_URL = "http://127.0.0.1:8080";
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

/** Raised by `start` when the account variable is unset or empty. */
export class MissingConfig extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MissingConfig";
  }
}

export interface SignalGatewayOptions {
  /** Name of the environment variable holding the account number (E.164). */
  accountEnvVar: string;
  /** The daemon's HTTP address. Default http://127.0.0.1:8080. */
  httpUrl?: string;
  /** Fallback environment when the context has none (embedding, tests). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Reconnect backoff; defaults to the spec's 2 s..60 s +20%. `random` makes the jitter testable. */
  reconnect?: BackoffOptions;
  /** Idle watchdog: how often it looks, and how long a silent stream may stay open. Default 30 s / 120 s. */
  watchdog?: { checkMs?: number; idleMs?: number };
  /** Clock for the watchdog (tests). */
  now?: () => number;
  fetch?: typeof fetch;
}

const STATE_LAST_EVENT = "lastEventId";

export class SignalGateway implements Gateway {
  readonly kind = "push";
  readonly type = "signal";
  readonly name = "signal";
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: false, typing: true };
  /** Signal shows longer texts as an attachment; 2000 keeps every reply inline. */
  readonly messageLimit = 2000;

  readonly #baseUrl: string;
  readonly #backoff: Backoff;
  readonly #checkMs: number;
  readonly #idleMs: number;
  readonly #now: () => number;
  readonly #fetch: typeof fetch;
  #ctx: GatewayContext | undefined;
  #account = "";
  #lastEventId: string | undefined;
  #stream: AbortController | undefined;
  #lastActivity = 0;
  #open = false;
  #stopped = false;

  constructor(private readonly options: SignalGatewayOptions) {
    this.#baseUrl = (options.httpUrl ?? SIGNAL_DEFAULT_HTTP_URL).replace(/\/+$/, "");
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

  async start(ctx: GatewayContext): Promise<void> {
    const account =
      ctx.env[this.options.accountEnvVar] || this.options.env?.[this.options.accountEnvVar] || "";
    if (!account) {
      throw new MissingConfig(
        `signal gateway: the account number is missing; set the environment variable ${this.options.accountEnvVar} (E.164, e.g. +15551234567)`,
      );
    }
    this.#ctx = ctx;
    this.#account = account;
    this.#stopped = false;
    this.#lastEventId = await ctx.state.get<string>(STATE_LAST_EVENT);
    ctx.scheduler.schedule("events", 0, (signal) => this.#connectOnce(signal));
    ctx.scheduler.every("watchdog", this.#checkMs, () => this.#watch());
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#ctx?.scheduler.cancel("events");
    this.#ctx?.scheduler.cancel("watchdog");
    this.#stream?.abort(new Error("gateway stopped"));
    this.#stream = undefined;
  }

  async send(thread: string, text: string, _options: SendOptions): Promise<SendResult> {
    const result = (await this.#rpc("send", { recipient: [thread], message: text })) as
      | { timestamp?: number }
      | undefined;
    return result?.timestamp !== undefined ? { messageId: String(result.timestamp) } : {};
  }

  async startTyping(thread: string): Promise<void> {
    await this.#rpc("sendTyping", { recipient: [thread] });
  }

  async #rpc(method: string, params: Record<string, unknown>): Promise<unknown> {
    try {
      return await callRpc(this.#baseUrl, method, { account: this.#account, ...params }, this.#fetch);
    } catch (err) {
      this.#ctx?.logger.error({ err, method }, `signal-cli ${method} failed`);
      throw err;
    }
  }

  /** One connection: open the stream, read it to its end, and return the delay before the next one. */
  async #connectOnce(signal: AbortSignal): Promise<number | null> {
    const ctx = this.#ctx;
    if (this.#stopped || !ctx) return null;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    this.#stream = controller;
    const url = `${this.#baseUrl}/api/v1/events?account=${encodeURIComponent(this.#account)}`;
    try {
      const res = await this.#fetch(url, {
        headers: {
          accept: "text/event-stream",
          ...(this.#lastEventId !== undefined ? { "last-event-id": this.#lastEventId } : {}),
        },
        signal: controller.signal,
      });
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        throw new Error(`the events stream answered HTTP ${res.status}`);
      }
      this.#lastActivity = this.#now();
      this.#open = true;
      this.#backoff.reset();
      ctx.logger.info({ url: this.#baseUrl }, "signal-cli events stream open");
      await readSse(res.body, {
        activity: () => {
          this.#lastActivity = this.#now();
        },
        event: (event) => this.#onEvent(event, controller),
      });
      if (!this.#stopped) ctx.logger.warn("signal-cli events stream ended; reconnecting");
    } catch (err) {
      if (this.#stopped) return null;
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      ctx.logger.warn(
        { err: reason instanceof Error ? reason.message : String(reason), url: this.#baseUrl },
        "signal-cli events stream failed or unreachable; reconnecting with backoff",
      );
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (this.#stream === controller) this.#stream = undefined;
      this.#open = false;
    }
    if (this.#stopped) return null;
    const delay = this.#backoff.next();
    ctx.logger.info({ attempt: this.#backoff.attempt, delayMs: delay }, "signal-cli reconnect scheduled");
    return delay;
  }

  async #onEvent(event: SseEvent, stream: AbortController): Promise<void> {
    const ctx = this.#ctx;
    if (!ctx || this.#stopped || stream.signal.aborted) return;
    if (event.event === "receive") {
      const found = classify(event.data, this.#account);
      if (found.kind === "direct") {
        try {
          await ctx.deliver(found.inbound);
        } catch (err) {
          // Not recorded: drop the stream so the daemon replays from the last recorded event. With
          // none yet, an id it does not know makes it replay everything it keeps (dedup drops repeats).
          this.#lastEventId ??= "0";
          ctx.logger.error(
            { err, thread: found.sender },
            "recording an inbound message failed; reconnecting to have it sent again",
          );
          stream.abort(new Error("an inbound message could not be recorded"));
          return;
        }
        // The read receipt is the sender's acknowledgement; best effort.
        await this.#rpc("sendReceipt", {
          recipient: [found.sender],
          targetTimestamp: [found.timestamp],
          type: "read",
        }).catch(() => undefined);
      } else {
        ctx.logger.debug({ reason: found.reason }, "signal event ignored");
      }
    }
    if (event.id !== undefined && event.id !== this.#lastEventId) {
      this.#lastEventId = event.id;
      await ctx.state.set(STATE_LAST_EVENT, event.id);
    }
  }

  #watch(): void {
    const stream = this.#stream;
    if (!stream || !this.#open) return;
    const idle = this.#now() - this.#lastActivity;
    if (idle < this.#idleMs) return;
    this.#ctx?.logger.warn(
      { idleMs: idle, limitMs: this.#idleMs },
      "signal-cli events stream silent (no events or keepalives); reconnecting",
    );
    stream.abort(new Error(`no events or keepalives for ${idle} ms`));
  }
}

export function createSignalGateway(options: SignalGatewayOptions): SignalGateway {
  return new SignalGateway(options);
}
