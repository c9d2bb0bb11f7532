// A WebSocket kept open to the platform, the socket counterpart of PollLoop: connect (after `url`,
// which may ask the platform who the bot is), reconnect with backoff when it drops, a ping the
// server must answer, events handled one at a time in their order, an event not recorded drops the
// socket so the platform's resume sends it again, refused credentials stop the gateway naming the
// variable, and stop aborts it all. What a frame means (authentication, hello, resume parameters,
// acknowledgements) is the adapter's: `opened`, `read` and `handle`.
import { once } from "node:events";
import type WebSocket from "ws";
import { Backoff, type BackoffOptions } from "./backoff.js";
import { isGatewaySendError } from "./errors.js";
import type { GatewayContext } from "./gateway.js";
import { PlatformCallError } from "./platform-fetch.js";

// WebSocket.OPEN (the readyState of an open socket). `ws` itself loads at the first connection, not
// with the package: the engine imports this package on the way to a service's first answer (#45).
const OPEN = 1;

/** What one frame means to the loop. */
export type SocketRead<E> =
  /** The platform accepted this connection (authenticated, resumed): backoff reset, a reconnect counted. */
  | { up: true }
  /** An event for `handle`, in order. */
  | { event: E }
  /** The credentials were refused: no reconnect, the session stops the gateway naming `envVar`. */
  | { rejected: string }
  /** A reply or a frame the adapter ignores. */
  | undefined;

/** Sends one JSON frame on the open socket; false when none is open. */
export type SocketSend = (frame: unknown) => boolean;

export interface SocketLoopOptions<E> {
  ctx: GatewayContext;
  /** What the connection is, for the log (`the Mattermost WebSocket`). */
  connection: string;
  /** The variable holding the credentials, named when they are refused. */
  envVar: string;
  /** Reconnect backoff. Default 1 s doubling to 60 s, +20% jitter. */
  backoff?: BackoffOptions;
  /**
   * The URL of the next connection (a resume's parameters included); may call the platform first.
   * A refused credential (a `GatewaySendError` with `credentials`, a `PlatformCallError` answered
   * 401) stops the loop; any other failure retries after the backoff.
   */
  url(signal: AbortSignal): Promise<string> | string;
  /** Right after the socket opened: the authentication frame. */
  opened?(send: SocketSend): void;
  /** One parsed frame. Throwing counts as `undefined` (logged). */
  read(frame: unknown): SocketRead<E>;
  /** One event; resolve = recorded, throw = not (the socket is dropped and opened again). */
  handle(event: E, send: SocketSend): Promise<void>;
  /**
   * A WebSocket ping every this many ms; a connection from which nothing (no pong, no frame, no
   * ping of the server's) arrived between two pings is dropped and opened again. Default 30 000; 0: none.
   */
  pingEveryMs?: number;
}

export class SocketLoop<E> {
  readonly #o: SocketLoopOptions<E>;
  readonly #backoff: Backoff;
  #ws: WebSocket | undefined;
  #chain: Promise<void> = Promise.resolve();
  #stopped = false;
  #upOnce = false;
  #reconnects = 0;

  constructor(options: SocketLoopOptions<E>) {
    this.#o = options;
    this.#backoff = new Backoff(options.backoff);
  }

  /** Connections accepted again after one was lost (the first one is not counted). */
  get reconnects(): number {
    return this.#reconnects;
  }

  /** Schedules the first connection (task `connect`). */
  start(): void {
    this.#stopped = false;
    this.#connectIn(0);
  }

  /** Closes the socket and waits (at most a second) for the server's answer to the close. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#o.ctx.scheduler.cancel("connect");
    const ws = this.#drop();
    if (ws?.readyState !== OPEN) {
      ws?.terminate();
      return;
    }
    const closed = once(ws, "close");
    ws.close(1000);
    const timer = setTimeout(() => ws.terminate(), 1_000);
    await closed.catch(() => {});
    clearTimeout(timer);
  }

  readonly send: SocketSend = (frame) => {
    if (this.#ws?.readyState !== OPEN) return false;
    this.#ws.send(JSON.stringify(frame));
    return true;
  };

  #connectIn(delayMs: number): void {
    if (this.#stopped) return;
    this.#o.ctx.scheduler.schedule("connect", delayMs, async (signal) => {
      try {
        await this.#open(signal);
      } catch (err) {
        if (signal.aborted || this.#stopped) return null;
        if (refusedCredentials(err)) {
          this.#rejected((err as Error).message);
          return null;
        }
        const retryInMs = this.#backoff.next();
        this.#o.ctx.logger.warn({ err, retryInMs }, `could not connect ${this.#o.connection}; retrying`);
        return retryInMs;
      }
      return null;
    });
  }

  async #open(signal: AbortSignal): Promise<void> {
    const url = await this.#o.url(signal);
    signal.throwIfAborted();
    const { default: WebSocket } = await import("ws");
    signal.throwIfAborted();
    const ws = new WebSocket(url);
    this.#ws = ws;
    signal.addEventListener("abort", () => ws.terminate(), { once: true });
    const alive = this.#heartbeat(ws);
    ws.on("message", (raw) => {
      alive();
      if (ws === this.#ws) this.#frame(ws, raw);
    });
    ws.on("close", (code) => {
      if (ws !== this.#ws || this.#stopped) return;
      this.#ws = undefined;
      this.#o.ctx.logger.warn({ code }, `${this.#o.connection} closed; reconnecting`);
      this.#connectIn(this.#backoff.next());
    });
    // An error is followed by close (which reconnects); before open it fails this attempt.
    ws.on("error", (err) => this.#o.ctx.logger.debug({ err }, `${this.#o.connection} error`));
    try {
      await once(ws, "open");
    } catch (err) {
      if (ws === this.#ws) this.#ws = undefined;
      throw err;
    }
    this.#o.opened?.(this.send);
  }

  /** Pings `ws` every `pingEveryMs`; returns what marks it alive. Silent between two pings: dropped. */
  #heartbeat(ws: WebSocket): () => void {
    let heard = true;
    const alive = () => {
      heard = true;
    };
    const every = this.#o.pingEveryMs ?? 30_000;
    if (every <= 0) return alive;
    ws.on("pong", alive);
    ws.on("ping", alive);
    const timer = setInterval(() => {
      if (ws.readyState !== OPEN) return;
      if (heard) {
        heard = false;
        ws.ping();
        return;
      }
      this.#o.ctx.logger.warn(
        { pingEveryMs: every },
        `${this.#o.connection} did not answer a ping; reconnecting`,
      );
      ws.terminate();
    }, every);
    ws.once("close", () => clearInterval(timer));
    return alive;
  }

  #frame(ws: WebSocket, raw: WebSocket.RawData): void {
    const ctx = this.#o.ctx;
    let read: SocketRead<E>;
    try {
      read = this.#o.read(JSON.parse(String(raw)));
    } catch (err) {
      ctx.logger.warn({ err }, `unreadable frame on ${this.#o.connection}`);
      return;
    }
    if (!read) return;
    if ("rejected" in read) {
      this.#rejected(read.rejected);
      return;
    }
    if ("up" in read) {
      this.#backoff.reset();
      if (this.#upOnce) {
        this.#reconnects += 1;
        ctx.reconnected?.();
      }
      this.#upOnce = true;
      ctx.platformCallSucceeded?.();
      return;
    }
    const { event } = read;
    this.#chain = this.#chain.then(async () => {
      if (ws !== this.#ws || this.#stopped) return;
      try {
        ctx.heard?.();
        await this.#o.handle(event, this.send);
      } catch (err) {
        if (this.#stopped || ws !== this.#ws) return;
        // Not recorded: drop this socket (and what it queued) and open again to get it resent.
        ctx.logger.error({ err }, `event not recorded; reopening ${this.#o.connection} to get it again`);
        this.#drop()?.terminate();
        this.#connectIn(this.#backoff.next());
      }
    });
  }

  #drop(): WebSocket | undefined {
    const ws = this.#ws;
    this.#ws = undefined;
    return ws;
  }

  /** The credentials were refused: no reconnect; the session stops this gateway naming the variable. */
  #rejected(detail: string): void {
    this.#stopped = true;
    this.#o.ctx.scheduler.cancel("connect");
    this.#drop()?.terminate();
    this.#o.ctx.credentialsRejected(this.#o.envVar, detail);
  }
}

function refusedCredentials(err: unknown): boolean {
  if (isGatewaySendError(err)) return err.credentials;
  return err instanceof PlatformCallError && err.facts.status === 401;
}
