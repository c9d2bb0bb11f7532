// The WebSocket at /api/v4/websocket (https://developers.mattermost.com/integrate/reference/websocket/):
// open, send `authentication_challenge` with the token, read events one at a time. Mattermost has no
// per-event acknowledgement; a reconnect that names the `connection_id` (from `hello`) and the
// `sequence_number` of the next event it wants gets what that connection missed. So the position
// (connection id + next seq) moves only after the session recorded an event and is kept in state: a
// failed recording closes the socket and resumes at that event, a restart resumes where it was.
// After each event a `ping` tells the server the client read past it.
import { Backoff, type BackoffOptions, type GatewayContext } from "@agentsvc/adapter-kit";
import WebSocket from "ws";
import { once } from "node:events";

export const POSITION_KEY = "position";

interface Position {
  connectionId: string;
  seq: number;
}

interface Event {
  event?: string;
  data?: Record<string, unknown>;
  seq?: number;
  status?: string;
  seq_reply?: number;
}

export interface SocketOptions {
  url: string;
  token: string;
  envVar: string;
  backoff: BackoffOptions;
  /** Runs before each connect (the bot's identity); a 401 stops the gateway, anything else retries. */
  identify(signal: AbortSignal): Promise<void>;
  /** Handles one event; resolve = recorded, throw = not (the socket resumes at it). */
  onEvent(event: string, data: Record<string, unknown>): Promise<void>;
}

export class MattermostSocket {
  readonly #ctx: GatewayContext;
  readonly #o: SocketOptions;
  readonly #backoff: Backoff;
  #ws: WebSocket | undefined;
  #position: Position | undefined;
  #chain: Promise<void> = Promise.resolve();
  #actionSeq = 0;
  #stopped = false;
  #connectedOnce = false;

  constructor(ctx: GatewayContext, o: SocketOptions) {
    this.#ctx = ctx;
    this.#o = o;
    this.#backoff = new Backoff(o.backoff);
  }

  async start(): Promise<void> {
    this.#position = await this.#ctx.state.get<Position>(POSITION_KEY);
    this.#connectIn(0);
  }

  /** Closes the socket and waits (at most a second) until the server answered the close. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#ctx.scheduler.cancel("connect");
    const ws = this.#ws;
    this.#ws = undefined;
    if (ws?.readyState !== WebSocket.OPEN) {
      ws?.terminate();
      return;
    }
    const closed = once(ws, "close");
    ws.close(1000);
    const timer = setTimeout(() => ws.terminate(), 1_000);
    await closed.catch(() => {});
    clearTimeout(timer);
  }

  /** Sends a client action (`user_typing`, `ping`) on the open socket; false when none is open. */
  action(action: string, data?: Record<string, unknown>): boolean {
    if (this.#ws?.readyState !== WebSocket.OPEN) return false;
    this.#ws.send(JSON.stringify({ action, seq: ++this.#actionSeq, ...(data ? { data } : {}) }));
    return true;
  }

  #connectIn(delayMs: number): void {
    if (this.#stopped) return;
    this.#ctx.scheduler.schedule("connect", delayMs, async (signal) => {
      try {
        await this.#open(signal);
      } catch (err) {
        if (signal.aborted || this.#stopped) return null;
        if ((err as { credentials?: boolean }).credentials) {
          this.#rejected("GET /api/v4/users/me answered 401");
          return null;
        }
        const delay = this.#backoff.next();
        this.#ctx.logger.warn(
          { err, retryInMs: delay },
          "could not connect to the Mattermost WebSocket; retrying",
        );
        return delay;
      }
      return null;
    });
  }

  async #open(signal: AbortSignal): Promise<void> {
    await this.#o.identify(signal);
    const q = new URLSearchParams();
    if (this.#position) {
      q.set("connection_id", this.#position.connectionId);
      q.set("sequence_number", String(this.#position.seq));
    }
    const base = this.#o.url.replace(/^http/, "ws").replace(/\/+$/, "");
    const ws = new WebSocket(`${base}/api/v4/websocket${q.size ? `?${q}` : ""}`);
    this.#ws = ws;
    signal.addEventListener("abort", () => ws.terminate(), { once: true });
    ws.on("message", (raw) => {
      if (ws !== this.#ws) return;
      let frame: Event;
      try {
        frame = JSON.parse(String(raw)) as Event;
      } catch (err) {
        this.#ctx.logger.warn({ err }, "unreadable Mattermost frame");
        return;
      }
      this.#frame(ws, frame);
    });
    ws.on("close", (code) => {
      if (ws !== this.#ws || this.#stopped) return;
      this.#ws = undefined;
      this.#ctx.logger.warn({ code }, "Mattermost WebSocket closed; reconnecting");
      this.#connectIn(this.#backoff.next());
    });
    // An error is followed by close (which reconnects); before open it fails this attempt.
    ws.on("error", (err) => this.#ctx.logger.debug({ err }, "Mattermost WebSocket error"));
    try {
      await once(ws, "open");
    } catch (err) {
      if (ws === this.#ws) this.#ws = undefined;
      throw err;
    }
    // Action seqs count per connection: the challenge is 1.
    this.#actionSeq = 0;
    this.action("authentication_challenge", { token: this.#o.token });
  }

  #frame(ws: WebSocket, f: Event): void {
    // A reply to our action: only a refused authentication matters.
    if (f.seq_reply !== undefined) {
      if (f.status === "FAIL" && f.seq_reply === 1)
        this.#rejected("the authentication_challenge was refused");
      return;
    }
    if (f.event === "hello") {
      const id = String(f.data?.connection_id ?? "");
      // Another id than the one asked for: the server lost that connection's events; start afresh.
      if (id && id !== this.#position?.connectionId)
        this.#position = { connectionId: id, seq: (f.seq ?? 0) + 1 };
      this.#backoff.reset();
      if (this.#connectedOnce) this.#ctx.reconnected?.();
      this.#connectedOnce = true;
      this.#ctx.platformCallSucceeded?.();
      return;
    }
    if (!f.event || typeof f.seq !== "number") return;
    const { event, seq } = f;
    const data = f.data ?? {};
    this.#chain = this.#chain.then(async () => {
      if (ws !== this.#ws || this.#stopped) return;
      try {
        this.#ctx.heard?.();
        await this.#o.onEvent(event, data);
        const position = this.#position;
        if (position && seq >= position.seq) {
          position.seq = seq + 1;
          await this.#ctx.state.set(POSITION_KEY, position);
        }
        this.action("ping");
      } catch (err) {
        if (this.#stopped) return;
        // Not recorded: drop this socket (and what it queued) and resume at this event.
        this.#ctx.logger.error({ err, event, seq }, "event not recorded; resuming to get it again");
        this.#ws = undefined;
        ws.terminate();
        this.#connectIn(this.#backoff.next());
      }
    });
  }

  /** The token was refused: no reconnect; the session stops this gateway naming the variable. */
  #rejected(detail: string): void {
    this.#stopped = true;
    this.#ws?.terminate();
    this.#ws = undefined;
    this.#ctx.credentialsRejected(this.#o.envVar, detail);
  }
}
