// The Socket Mode connection set (https://api.slack.com/apis/socket-mode). Slack's URLs are
// single-use, so every (re)connection asks apps.connections.open for a new one. A connection is replaced, never just dropped: on a
// `disconnect` frame, an unexpected close, or silence past the watchdog, a new connection is
// opened and the old one is closed only after the new one said hello. Envelopes are handled on
// whichever connection they arrive. Liveness is any frame, Slack's pings, or pongs to ours.
import { Backoff, type BackoffOptions, DeafWatch, type GatewayContext } from "@agentsvc/adapter-kit";
import WebSocket from "ws";

export interface Envelope {
  envelope_id?: string;
  type: string;
  reason?: string;
  payload?: Record<string, unknown>;
  retry_attempt?: number;
}

export interface SocketModeOptions {
  openUrl(signal: AbortSignal): Promise<string>;
  /** Handles one envelope; resolve = recorded (the envelope is then acknowledged), throw = not. */
  onEnvelope(envelope: Envelope): Promise<void>;
  /** Slack refused the app: a rejected token or Socket Mode turned off. Nothing is retried after it. */
  onRejected(err: unknown, detail: string): void;
  /** True for an openUrl failure that is a rejected credential (no point retrying). */
  isRejection(err: unknown): boolean;
  watchdogMs: number;
  pingIntervalMs: number;
  helloTimeoutMs: number;
  backoff: BackoffOptions;
  /** The entry's `deafAfter` in ms: a connection up that brought no envelope for that long is replaced. */
  deafAfterMs?: number;
}

interface Conn {
  id: number;
  ws: WebSocket;
  ready: boolean;
  retiring: boolean;
  lastSeen: number;
}

export class SocketMode {
  readonly #conns = new Set<Conn>();
  readonly #backoff: Backoff;
  #connecting = false;
  /** A replacement was asked for while a connection was being opened (hello and disconnect can arrive in one read). */
  #wanted = false;
  #stopped = false;
  /** Set when the live connection was lost (closed, or silent past the watchdog); the next hello is a reconnect. */
  #lost = false;
  #next = 1;

  readonly #ctx: GatewayContext;
  readonly #options: SocketModeOptions;
  readonly #deaf: DeafWatch | undefined;

  constructor(ctx: GatewayContext, options: SocketModeOptions) {
    this.#ctx = ctx;
    this.#options = options;
    this.#backoff = new Backoff(options.backoff);
    // Slack's "connected but no inbound": hellos, pings and pongs keep coming, events do not.
    this.#deaf =
      options.deafAfterMs === undefined
        ? undefined
        : new DeafWatch({
            afterMs: options.deafAfterMs,
            logger: ctx.logger,
            connection: "Socket Mode",
            reconnect: () => {
              this.#lost = true;
              this.replace(this.#current(), "deafAfter");
            },
          });
  }

  /** Connections that said hello and are not being replaced. */
  get live(): number {
    return [...this.#conns].filter((c) => c.ready && !c.retiring).length;
  }

  start(): void {
    this.#connectIn(0);
    this.#ctx.scheduler.every("watchdog", this.#options.pingIntervalMs, () => this.#watch());
    const deaf = this.#deaf;
    if (deaf)
      this.#ctx.scheduler.every("deaf-watch", deaf.checkEveryMs, () => void deaf.check(this.live > 0));
  }

  stop(): void {
    this.#stopped = true;
    this.#ctx.scheduler.cancel("connect");
    this.#ctx.scheduler.cancel("watchdog");
    this.#ctx.scheduler.cancel("deaf-watch");
    for (const c of this.#conns) c.ws.terminate();
    this.#conns.clear();
  }

  /** Opens a new connection; `old` is closed once the new one said hello. */
  replace(old: Conn | undefined, why: string): void {
    if (this.#stopped) return;
    if (old) old.retiring = true;
    this.#ctx.logger.info({ connection: old?.id, why }, "opening a new Socket Mode connection");
    this.#connectIn(0);
  }

  #connectIn(delayMs: number): void {
    if (this.#stopped) return;
    if (this.#connecting) {
      this.#wanted = true;
      return;
    }
    this.#ctx.scheduler.schedule("connect", delayMs, async (signal) => {
      this.#connecting = true;
      try {
        await this.#open(signal);
        this.#backoff.reset();
        return null;
      } catch (err) {
        if (signal.aborted || this.#stopped) return null;
        if (this.#options.isRejection(err)) {
          this.#options.onRejected(err, err instanceof Error ? err.message : String(err));
          return null;
        }
        const delay = this.#backoff.next();
        this.#ctx.logger.warn({ err, retryInMs: delay }, "could not open a Socket Mode connection; retrying");
        return delay;
      } finally {
        this.#connecting = false;
        if (this.#wanted) {
          this.#wanted = false;
          // After this task has ended, so the new one is not cancelled with it.
          setTimeout(() => this.#connectIn(0), 0).unref();
        }
      }
    });
  }

  async #open(signal: AbortSignal): Promise<void> {
    const url = await this.#options.openUrl(signal);
    const conn: Conn = {
      id: this.#next++,
      ws: new WebSocket(url),
      ready: false,
      retiring: false,
      lastSeen: Date.now(),
    };
    this.#conns.add(conn);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new Error("no hello from Slack in time")),
        this.#options.helloTimeoutMs,
      );
      const onAbort = () => fail(new Error("stopped"));
      signal.addEventListener("abort", onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      };
      const fail = (err: Error) => {
        done();
        this.#conns.delete(conn);
        conn.ws.terminate();
        reject(err);
      };
      conn.ws.on("error", (err) => {
        if (!conn.ready) fail(err);
        else this.#ctx.logger.warn({ err, connection: conn.id }, "socket error");
      });
      const alive = () => {
        conn.lastSeen = Date.now();
      };
      conn.ws.on("pong", alive);
      conn.ws.on("ping", alive);
      conn.ws.on("close", (code) => this.#closed(conn, code));
      conn.ws.on("message", (raw) => {
        conn.lastSeen = Date.now();
        let frame: Envelope;
        try {
          frame = JSON.parse(String(raw)) as Envelope;
        } catch {
          return;
        }
        if (frame.type === "hello" && !conn.ready) {
          done();
          this.#hello(conn);
          resolve();
          return;
        }
        this.#frame(conn, frame);
      });
    });
  }

  /** The live connection envelopes arrive on (the newest that said hello and is not being replaced). */
  #current(): Conn | undefined {
    return [...this.#conns].reverse().find((c) => c.ready && !c.retiring);
  }

  #hello(conn: Conn): void {
    conn.ready = true;
    // A new connection starts the silence anew: deafAfter measures one connection's silence.
    this.#deaf?.heard();
    this.#ctx.logger.info({ connection: conn.id }, "Socket Mode connected");
    if (this.#lost) this.#ctx.reconnected?.();
    this.#lost = false;
    this.#ctx.platformCallSucceeded?.();
    // Only now that the new connection is up are the ones it replaces closed.
    for (const old of this.#conns) {
      if (old === conn || !old.retiring) continue;
      this.#conns.delete(old);
      old.ws.close(1000, "replaced");
      setTimeout(() => old.ws.terminate(), 1_000).unref();
    }
  }

  #frame(conn: Conn, frame: Envelope): void {
    if (frame.type === "disconnect") {
      // link_disabled: Socket Mode was turned off for the app; a new connection would be refused too.
      if (frame.reason === "link_disabled") {
        this.#options.onRejected(
          undefined,
          "Socket Mode is turned off for this app (disconnect link_disabled): turn it on under Socket Mode in the app settings",
        );
        return;
      }
      if (!conn.retiring) this.replace(conn, `disconnect: ${frame.reason ?? "unknown"}`);
      return;
    }
    if (!frame.envelope_id) return;
    // An event or interaction: the connection is not deaf (disconnect refreshes do not count).
    this.#ctx.heard?.();
    this.#deaf?.heard();
    const id = frame.envelope_id;
    this.#options.onEnvelope(frame).then(
      () => {
        // Ack means recorded: sent on the connection it came from; if that one is gone, Slack retries.
        if (conn.ws.readyState === WebSocket.OPEN) conn.ws.send(JSON.stringify({ envelope_id: id }));
      },
      (err: unknown) =>
        this.#ctx.logger.error(
          { err, envelope: id },
          "envelope not recorded; left unacknowledged so Slack retries it",
        ),
    );
  }

  #closed(conn: Conn, code: number): void {
    const known = this.#conns.delete(conn);
    if (!known || this.#stopped || conn.retiring || !conn.ready) return;
    this.#ctx.logger.warn({ connection: conn.id, code }, "Socket Mode connection closed unexpectedly");
    this.#lost = true;
    if (this.live === 0) this.replace(undefined, `closed (${code})`);
  }

  /** Pings every live connection; one silent past the watchdog is replaced. */
  #watch(): void {
    const now = Date.now();
    for (const conn of this.#conns) {
      if (!conn.ready || conn.retiring) continue;
      if (now - conn.lastSeen > this.#options.watchdogMs) {
        this.#ctx.logger.warn(
          { connection: conn.id, silentMs: now - conn.lastSeen },
          "connection silent past the watchdog (no frames, no pings, no pongs); replacing it",
        );
        this.#lost = true;
        this.replace(conn, "watchdog");
        continue;
      }
      conn.ws.ping();
    }
  }
}
