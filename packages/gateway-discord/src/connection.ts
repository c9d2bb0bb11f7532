// The Discord Gateway connection, row by row of the spec's connection table:
// Hello -> heartbeat at the announced interval (first beat jittered), re-registered on every Hello;
// a heartbeat whose predecessor was not ACKed -> reconnect and Resume; Reconnect (op 7) or a
// resumable close -> Resume with the last recorded sequence on the resume URL; Invalid Session
// d:false or close 4007/4009 -> fresh Identify; 4004, 4010-4014 -> stopped, no retry.
// Session id, sequence and resume URL are durable state, so a process restart resumes too. The
// sequence advances only after the session recorded the dispatch: a resume replays the rest.
import { Backoff, type BackoffOptions, DeafWatch, type GatewayContext } from "@agentsvc/adapter-kit";
import WebSocket from "ws";

// Close codes, per https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-close-event-codes:
// 4004 (Authentication failed) -> credentials; 4010-4014 -> stop, no retry; 4007 (Invalid seq)
// and 4009 (Session timed out) -> a new session; every other code (4000-4008) -> resume.
export const CREDENTIALS_CLOSE = 4004;

/** Close codes after which reconnecting cannot help: stop, and say why. */
export const FATAL_CLOSE: Record<number, string> = {
  4010: "invalid shard sent in Identify",
  4011: "sharding required: the bot is in too many guilds for one connection",
  4012: "invalid API version",
  4013: "invalid intents: the intents value is not a valid bit field",
  4014: "disallowed intents: enable the privileged intents this entry asks for (Message Content Intent) in the Developer Portal, Bot page, or remove them from `intents`",
};

/** Close codes after which the session is gone: identify afresh. */
export const NEW_SESSION_CLOSE = new Set([4007, 4009]);

export const SESSION_KEY = "session";
/** Closing with 1000/1001 would end the Discord session; any other code keeps it resumable. */
const RESUMABLE_CLOSE = 4900;

export interface StoredSession {
  id: string;
  seq: number;
  resumeUrl: string;
}

export interface GatewaySocketOptions {
  token: string;
  /** The variable holding the token, named when Discord rejects it. */
  tokenEnvVar: string;
  intents: number;
  gatewayUrl(signal: AbortSignal): Promise<string>;
  /** Handles one dispatch; resolve = recorded, throw = not (the connection resumes to get it again). */
  onDispatch(t: string, d: unknown): Promise<void>;
  onReady(user: { id: string }): void;
  /**
   * Silence allowed before Hello, and the grace added to `heartbeat_interval` after it: a healthy
   * quiet connection is silent for up to one interval (Discord ACKs each beat), so the limit must
   * exceed it or a quiet bot reconnects every interval.
   */
  watchdogMs: number;
  backoff: BackoffOptions;
  /** Random source in [0, 1) for the first heartbeat's jitter. */
  jitter: () => number;
  /** Wait before identifying after Invalid Session d:false. Default 1 000-5 000 ms. */
  invalidSessionDelayMs: [number, number];
  /** Resume attempts in a row that may fail before a fresh Identify. */
  maxResumeFailures: number;
  /** The entry's `deafAfter` in ms: heartbeats ACKed but no dispatch for that long -> resume, with a warning. */
  deafAfterMs?: number;
}

type Frame = { op: number; d: unknown; s?: number | null; t?: string | null };

export class GatewaySocket {
  #ws: WebSocket | undefined;
  #session: StoredSession | undefined;
  #acked = true;
  #resuming = false;
  #resumeFailures = 0;
  /** Set at the first READY or RESUMED of this process: later ones are reconnects. */
  #connectedOnce = false;
  #stopped = false;
  #halted = false;
  #lastFrame = Date.now();
  /** The current connection's heartbeat_interval (undefined until its Hello). */
  #interval: number | undefined;
  #chain: Promise<void> = Promise.resolve();
  #generation = 0;
  #failedGeneration = -1;
  readonly #backoff: Backoff;
  readonly #ctx: GatewayContext;
  readonly #o: GatewaySocketOptions;
  readonly #deaf: DeafWatch | undefined;

  constructor(ctx: GatewayContext, o: GatewaySocketOptions) {
    this.#ctx = ctx;
    this.#o = o;
    this.#backoff = new Backoff(o.backoff);
    // Heartbeat ACKs without dispatches: the connection is up and hears nothing; a resume replays what was missed.
    this.#deaf =
      o.deafAfterMs === undefined
        ? undefined
        : new DeafWatch({
            afterMs: o.deafAfterMs,
            logger: ctx.logger,
            connection: "the Discord gateway connection",
            reconnect: () => this.#reconnect("deafAfter", true),
          });
  }

  /** True once a fatal close code stopped the connection for good. */
  get halted(): boolean {
    return this.#halted;
  }

  async start(): Promise<void> {
    this.#session = await this.#ctx.state.get<StoredSession>(SESSION_KEY);
    this.#connectIn(0);
    this.#ctx.scheduler.every("watchdog", Math.max(1, Math.floor(this.#o.watchdogMs / 3)), () =>
      this.#watch(),
    );
    const deaf = this.#deaf;
    if (deaf)
      this.#ctx.scheduler.every("deaf-watch", deaf.checkEveryMs, () => {
        // Up: the socket is open and has said Hello (its heartbeats are being ACKed, or the watchdog acts).
        deaf.check(this.#ws?.readyState === WebSocket.OPEN && this.#interval !== undefined);
      });
  }

  stop(): void {
    this.#stopped = true;
    for (const task of ["connect", "heartbeat", "watchdog", "deaf-watch"]) this.#ctx.scheduler.cancel(task);
    this.#detach();
  }

  #connectIn(delayMs: number): void {
    if (this.#stopped || this.#halted) return;
    this.#ctx.scheduler.schedule("connect", delayMs, async (signal) => {
      try {
        await this.#open(signal);
        return null;
      } catch (err) {
        if (signal.aborted || this.#stopped) return null;
        if ((err as { credentials?: boolean }).credentials) {
          this.#credentialsRejected("GET /gateway/bot answered 401");
          return null;
        }
        const delay = this.#backoff.next();
        this.#ctx.logger.warn({ err, retryInMs: delay }, "could not connect to the gateway; retrying");
        return delay;
      }
    });
  }

  async #open(signal: AbortSignal): Promise<void> {
    const base = this.#session?.resumeUrl ?? (await this.#o.gatewayUrl(signal));
    const ws = new WebSocket(`${base.replace(/\/+$/, "")}/?v=10&encoding=json`);
    this.#ws = ws;
    this.#generation += 1;
    this.#lastFrame = Date.now();
    this.#interval = undefined;
    ws.on("message", (raw) => {
      if (ws !== this.#ws) return;
      try {
        this.#frame(JSON.parse(String(raw)) as Frame);
      } catch (err) {
        this.#ctx.logger.warn({ err }, "unreadable gateway frame");
      }
    });
    ws.on("close", (code, reason) => {
      if (ws === this.#ws) this.#closed(code, String(reason));
    });
    await new Promise<void>((resolve, reject) => {
      let opened = false;
      ws.once("open", () => {
        opened = true;
        resolve();
      });
      // After open, the close that follows the error reconnects. Not readyState: ws already says
      // CLOSING when a frame it refuses fails an open socket, and that close would be ignored.
      ws.once("error", (err) => {
        if (opened) return;
        if (ws === this.#ws) this.#ws = undefined;
        reject(err);
      });
    });
  }

  #send(frame: { op: number; d: unknown }): void {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify(frame));
  }

  #heartbeat(): void {
    this.#send({ op: 1, d: this.#session?.seq ?? null });
  }

  #frame(f: Frame): void {
    this.#lastFrame = Date.now();
    switch (f.op) {
      case 10:
        this.#hello((f.d as { heartbeat_interval: number }).heartbeat_interval);
        return;
      case 11:
        this.#acked = true;
        this.#ctx.platformCallSucceeded?.();
        return;
      case 1:
        this.#heartbeat();
        return;
      case 7:
        this.#ctx.logger.info("gateway asked to reconnect (op 7); resuming");
        this.#reconnect("reconnect requested", true);
        return;
      case 9:
        this.#invalidSession(f.d === true);
        return;
      case 0:
        // A dispatch: the connection is not deaf (heartbeat ACKs alone do not say so).
        this.#ctx.heard?.();
        this.#deaf?.heard();
        this.#dispatch(f);
        return;
    }
  }

  #hello(interval: number): void {
    // A new connection starts the silence anew.
    this.#deaf?.heard();
    this.#acked = true;
    this.#interval = interval;
    const beat = () => {
      if (!this.#acked) {
        this.#ctx.logger.warn("the last heartbeat was not acknowledged (zombie connection); reconnecting");
        this.#reconnect("no heartbeat ACK", true);
        return null;
      }
      this.#acked = false;
      this.#heartbeat();
      return interval;
    };
    // Same name: a new Hello replaces the previous registration.
    this.#ctx.scheduler.schedule("heartbeat", Math.floor(interval * this.#o.jitter()), beat);
    const session = this.#session;
    if (session) {
      this.#resuming = true;
      this.#send({ op: 6, d: { token: this.#o.token, session_id: session.id, seq: session.seq } });
    } else {
      this.#send({
        op: 2,
        d: {
          token: this.#o.token,
          intents: this.#o.intents,
          properties: { os: process.platform, browser: "agentsvc", device: "agentsvc" },
        },
      });
    }
  }

  #dispatch(f: Frame): void {
    const seq = typeof f.s === "number" ? f.s : undefined;
    const generation = this.#generation;
    if (f.t === "READY") {
      const d = f.d as { session_id: string; resume_gateway_url: string; user: { id: string } };
      this.#session = { id: d.session_id, seq: seq ?? 0, resumeUrl: d.resume_gateway_url };
      this.#resuming = false;
      this.#resumeFailures = 0;
      this.#backoff.reset();
      this.#o.onReady(d.user);
      this.#ctx.logger.info({ session: d.session_id }, "identified (READY)");
    } else if (f.t === "RESUMED") {
      this.#resuming = false;
      this.#resumeFailures = 0;
      this.#backoff.reset();
      this.#ctx.logger.info("session resumed");
    }
    if (f.t === "READY" || f.t === "RESUMED") {
      if (this.#connectedOnce) this.#ctx.reconnected?.();
      this.#connectedOnce = true;
    }
    const t = f.t ?? "";
    const session = this.#session;
    this.#chain = this.#chain.then(async () => {
      if (generation === this.#failedGeneration || this.#stopped) return;
      try {
        if (t !== "READY" && t !== "RESUMED") await this.#o.onDispatch(t, f.d);
        if (seq !== undefined) await this.#record(session, seq);
      } catch (err) {
        if (this.#stopped) return;
        // Not recorded: drop what is queued from this connection and resume to have it replayed.
        this.#failedGeneration = generation;
        this.#ctx.logger.error({ err, t, seq }, "dispatch not recorded; resuming to get it again");
        this.#reconnect("dispatch not recorded", true, this.#backoff.next());
      }
    });
  }

  /**
   * Stores `seq` as the session's, unless it is older than what is stored. An equal one is stored too:
   * that is how READY's new session is stored. A dispatch of a session forgotten while it was handled
   * (a fresh Identify since) records nothing: its numbers are not the new session's.
   */
  async #record(session: StoredSession | undefined, seq: number): Promise<void> {
    if (!session || session !== this.#session || seq < session.seq) return;
    session.seq = seq;
    await this.#ctx.state.set(SESSION_KEY, session);
  }

  #invalidSession(resumable: boolean): void {
    if (resumable) {
      this.#ctx.logger.info("invalid session (resumable); resuming");
      this.#reconnect("invalid session", true);
      return;
    }
    const [min, max] = this.#o.invalidSessionDelayMs;
    const wait = Math.round(min + (max - min) * this.#o.jitter());
    this.#ctx.logger.warn({ retryInMs: wait }, "invalid session (not resumable); identifying afresh");
    this.#reconnect("invalid session", false, wait);
  }

  /** Leaves the current socket (closed so the session stays resumable) and connects again. */
  #reconnect(why: string, resume: boolean, delayMs = 0): void {
    if (this.#stopped) return;
    if (!resume) void this.#forget();
    this.#ctx.logger.debug({ why, resume }, "reconnecting");
    this.#detach();
    this.#connectIn(delayMs);
  }

  #detach(): void {
    this.#ctx.scheduler.cancel("heartbeat");
    const ws = this.#ws;
    this.#ws = undefined;
    if (!ws) return;
    if (ws.readyState === WebSocket.OPEN) ws.close(RESUMABLE_CLOSE, "reconnecting");
    // A zombie may never finish the close handshake.
    setTimeout(() => ws.terminate(), 1_000).unref();
  }

  async #forget(): Promise<void> {
    this.#session = undefined;
    this.#resuming = false;
    this.#resumeFailures = 0;
    await this.#ctx.state.delete(SESSION_KEY);
  }

  #closed(code: number, reason: string): void {
    this.#ctx.scheduler.cancel("heartbeat");
    this.#ws = undefined;
    if (this.#stopped) return;
    if (code === CREDENTIALS_CLOSE) {
      this.#credentialsRejected(`gateway closed with 4004: ${reason || "Authentication failed."}`);
      return;
    }
    if (FATAL_CLOSE[code]) {
      this.#halt();
      this.#ctx.logger.error(
        { code, reason },
        `gateway closed with ${code}: ${FATAL_CLOSE[code]}. Not reconnecting.`,
      );
      return;
    }
    if (NEW_SESSION_CLOSE.has(code)) {
      this.#ctx.logger.warn({ code, reason }, "the session is gone; identifying afresh");
      void this.#forget();
      this.#connectIn(this.#backoff.next());
      return;
    }
    if (this.#resuming) {
      this.#resumeFailures += 1;
      if (this.#resumeFailures >= this.#o.maxResumeFailures) {
        this.#ctx.logger.warn(
          { failures: this.#resumeFailures },
          "resuming keeps failing; identifying afresh",
        );
        void this.#forget();
      }
    }
    this.#ctx.logger.warn(
      { code, reason, resume: this.#session !== undefined },
      "gateway connection closed; reconnecting",
    );
    this.#connectIn(this.#backoff.next());
  }

  #halt(): void {
    this.#halted = true;
    this.#ctx.scheduler.cancel("watchdog");
  }

  /**
   * The token is wrong or revoked: no reconnect. The session logs one error naming the variable,
   * stops this gateway and shows it stopped (with the reason) in its status and `/health`.
   */
  #credentialsRejected(detail: string): void {
    this.#halt();
    this.#ctx.credentialsRejected(this.#o.tokenEnvVar, detail);
  }

  #watch(): void {
    const limit = (this.#interval ?? 0) + this.#o.watchdogMs;
    if (!this.#ws || Date.now() - this.#lastFrame <= limit) return;
    this.#ctx.logger.warn(
      { silentMs: Date.now() - this.#lastFrame, limitMs: limit },
      "no gateway frame within the watchdog period; reconnecting",
    );
    this.#reconnect("watchdog", true);
  }
}
