// A local Slack for Socket Mode apps: `POST /api/apps.connections.open` hands out single-use
// ws:// URLs, each connection gets `hello`, envelopes wait for their acknowledgement (and are
// retried when unacknowledged), and the Web API methods a bot uses answer on `/api/<method>`.
// Faults: disconnect frames, dropped or deaf sockets, 429/5xx/`ok: false` answers, revoked tokens.
// Socket Mode as documented at https://api.slack.com/apis/socket-mode: `hello` on connect,
// `disconnect` frames (`warning` some seconds before a refresh, `refresh_requested`, `link_disabled`),
// WebSocket pings from Slack and pongs to the app's pings.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { readParams, type UploadedFile } from "../http-body.js";
import { type RateLimit, RateWindow } from "../rate-window.js";
import { readBody, answerJson as sendJson } from "../http-util.js";
import { type FakeServer, listenLocal } from "../server.js";
import { EnvelopeTracker } from "./envelopes.js";
import { SlackFiles } from "./files.js";
import type { SlackConnectionInfo, SlackEnvelope, SlackFault } from "./types.js";
import { SlackWorkspace } from "./workspace.js";

export interface SlackFakeOptions {
  botToken?: string;
  appToken?: string;
  port?: number;
  /** Unacknowledged envelopes are retried after this long. Default 3 000 ms (tests shorten it). */
  ackTimeoutMs?: number;
  /** Retries of an unacknowledged envelope. Default 3. */
  maxRetries?: number;
  /** After a `disconnect` frame the fake closes that socket this much later. Default 1 000 ms. */
  disconnectCloseMs?: number;
  /**
   * Slack pings every connection (a WebSocket ping frame) this often; 0 = never. Default 10 000 ms
   * (Slack's SDKs give up on a connection after 30 s without a server ping, so Slack pings well within that).
   */
  serverPingMs?: number;
  /** Pongs to the app's pings (Slack answers them, sometimes slowly). Default true. */
  answerPings?: boolean;
  /** The bot's own posts come back as `message` events, as with `message.im`/`message.channels`. Default true. */
  echoOwnMessages?: boolean;
}

interface Connection {
  info: SlackConnectionInfo;
  socket: WebSocket;
}

/**
 * Slack's per-method limits ("per API method per workspace per app",
 * https://docs.slack.dev/apis/web-api/rate-limits) for the methods a streamed reply uses:
 * chat.appendStream is Tier 4, 100+ a minute (https://docs.slack.dev/reference/methods/chat.appendStream),
 * chat.update Tier 3, 50+ a minute (https://docs.slack.dev/reference/methods/chat.update),
 * chat.stopStream Tier 2, 20+ a minute (https://docs.slack.dev/reference/methods/chat.stopStream).
 * Over a limit Slack answers HTTP 429 with `Retry-After` in seconds.
 */
export const SLACK_METHOD_LIMITS: Record<string, RateLimit> = {
  "chat.appendStream": { calls: 100, perMs: 60_000 },
  "chat.update": { calls: 50, perMs: 60_000 },
  "chat.stopStream": { calls: 20, perMs: 60_000 },
};

export class SlackFake {
  readonly botToken: string;
  readonly appToken: string;
  readonly workspace: SlackWorkspace;
  readonly tracker: EnvelopeTracker;
  /** Files users shared (served at `url_private` with the bot token) and files the bot uploaded. */
  readonly files: SlackFiles;
  /** Every connection ever opened, in order. */
  readonly connections: SlackConnectionInfo[] = [];
  /** Every Web API call (method, params). */
  readonly calls: { method: string; params: Record<string, unknown>; at: number }[] = [];
  /** The method limits the fake enforces (a test may lower them to force 429s). */
  limits: Record<string, RateLimit> = { ...SLACK_METHOD_LIMITS };
  /** Calls refused for a method's limit (key: the method). */
  readonly rateLimited = new RateWindow();
  #server!: FakeServer;
  readonly #wss = new WebSocketServer({ noServer: true, autoPong: false });
  readonly #open = new Map<number, Connection>();
  readonly #tickets = new Set<string>();
  readonly #faults = new Map<string, SlackFault[]>();
  #nextConnection = 1;
  readonly #disconnectCloseMs: number;
  readonly #serverPingMs: number;
  readonly #answerPings: boolean;
  /** Tokens that now answer this error on every call (revoked, account deactivated ...). */
  readonly #revoked = new Map<string, string>();

  private constructor(options: SlackFakeOptions) {
    this.botToken = options.botToken ?? "xoxb-fake-bot";
    this.appToken = options.appToken ?? "xapp-fake-app";
    this.#disconnectCloseMs = options.disconnectCloseMs ?? 1_000;
    this.#serverPingMs = options.serverPingMs ?? 10_000;
    this.#answerPings = options.answerPings ?? true;
    this.files = new SlackFiles(() => this.#server.url, this.botToken);
    this.tracker = new EnvelopeTracker(
      (e) => this.#send(e),
      options.ackTimeoutMs ?? 3_000,
      options.maxRetries ?? 3,
    );
    this.workspace = new SlackWorkspace(
      "T0TEAM",
      "A0APP",
      "U0BOT",
      (type, payload) => this.tracker.deliver(type, payload),
      { botId: "B0BOT", echoOwnMessages: options.echoOwnMessages ?? true },
    );
  }

  static async start(options: SlackFakeOptions = {}): Promise<SlackFake> {
    const fake = new SlackFake(options);
    fake.#server = await listenLocal((req, res) => void fake.#http(req, res), options.port);
    fake.#server.server.on("upgrade", (req, socket, head) => fake.#upgrade(req, socket, head));
    return fake;
  }

  /** What an adapter takes as `apiBaseUrl` (`<url>/api`). */
  get apiBaseUrl(): string {
    return `${this.#server.url}/api`;
  }

  /** Connections open right now. */
  get openConnections(): SlackConnectionInfo[] {
    return [...this.#open.values()].map((c) => c.info);
  }

  /** An envelope exactly as Slack sends it (a fixture); resolves once acknowledged. */
  deliverEnvelope(envelope: SlackEnvelope): Promise<void> {
    return this.tracker.deliverEnvelope(envelope);
  }

  /**
   * From now on every call with that token answers `{ ok: false, error }` (HTTP 200), as the Web API
   * does for `token_revoked`, `account_inactive`, `invalid_auth` (https://api.slack.com/methods/chat.postMessage#errors).
   */
  revoke(which: "bot" | "app", error = "token_revoked"): void {
    this.#revoked.set(which === "bot" ? this.botToken : this.appToken, error);
  }

  failNext(method: string, fault: SlackFault): void {
    const list = this.#faults.get(method) ?? [];
    list.push(fault);
    this.#faults.set(method, list);
  }

  /** Sends a `disconnect` frame (on the newest connection unless named) and closes it later. */
  disconnect(reason: "warning" | "refresh_requested" | "link_disabled", connectionId?: number): void {
    const c = this.#pick(connectionId);
    if (!c) return;
    c.socket.send(
      JSON.stringify({ type: "disconnect", reason, debug_info: { host: `applink-fake-${c.info.id}` } }),
    );
    const close = () => c.socket.close(1000, reason);
    if (reason === "link_disabled") close();
    else setTimeout(close, this.#disconnectCloseMs).unref();
  }

  /** Destroys the socket without a close frame (a network drop). */
  drop(connectionId?: number): void {
    this.#pick(connectionId)?.socket.terminate();
  }

  /** The connection stays open but delivers nothing and answers no pings. */
  deafen(connectionId?: number): void {
    const c = this.#pick(connectionId);
    if (c) c.info.deaf = true;
  }

  async close(): Promise<void> {
    this.tracker.close();
    for (const c of this.#open.values()) c.socket.terminate();
    this.#wss.close();
    await this.#server.close();
  }

  #pick(id?: number): Connection | undefined {
    if (id !== undefined) return this.#open.get(id);
    return [...this.#open.values()].at(-1);
  }

  /** Envelopes go to the newest healthy connection; none: they wait. */
  #send(envelope: SlackEnvelope): boolean {
    const c = [...this.#open.values()].filter((x) => !x.info.deaf && x.info.helloAt).at(-1);
    if (!c) return false;
    c.socket.send(JSON.stringify(envelope));
    return true;
  }

  async #http(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path.startsWith("/files-pri/")) return this.files.serve(path, req.headers.authorization, res);
    const upload = /^\/upload\/v1\/([A-Z0-9]+)$/.exec(path);
    if (upload) {
      // The upload URL is signed: no token needed. Raw bytes or a multipart `file` part.
      const multipart = (req.headers["content-type"] ?? "").includes("multipart/form-data");
      const body = multipart ? ((await readParams(req)).file as UploadedFile) : await readBody(req);
      return this.files.receive(upload[1] as string, body, res);
    }
    const m = /^\/api\/([a-zA-Z.]+)$/.exec(path);
    if (!m) return sendJson(res, 404, { ok: false, error: "unknown_method" });
    const method = m[1] as string;
    const params = await readParams(req).catch(() => ({}) as Record<string, unknown>);
    this.calls.push({ method, params, at: Date.now() });
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const wanted = method === "apps.connections.open" ? this.appToken : this.botToken;
    if (token !== wanted)
      return sendJson(res, 200, { ok: false, error: token ? "invalid_auth" : "not_authed" });
    const revoked = this.#revoked.get(token);
    if (revoked) return sendJson(res, 200, { ok: false, error: revoked });
    const fault = this.#takeFault(method);
    const slow = fault && "slowAnswerMs" in fault ? fault.slowAnswerMs : 0;
    if (fault && !("slowAnswerMs" in fault)) {
      if ("drop" in fault) return void res.socket?.destroy();
      if ("error" in fault) return sendJson(res, 200, { ok: false, error: fault.error });
      if (fault.status === 429)
        return sendJson(
          res,
          429,
          { ok: false, error: "ratelimited" },
          { "retry-after": String(fault.retryAfter) },
        );
      return sendJson(res, fault.status, { ok: false, error: "internal_error" });
    }
    if (method === "apps.connections.open") {
      const ticket = `t${this.#nextConnection}-${Math.random().toString(36).slice(2)}`;
      this.#tickets.add(ticket);
      return sendJson(res, 200, {
        ok: true,
        url: `${this.#server.url.replace("http", "ws")}/link/?ticket=${ticket}&app_id=A0APP`,
      });
    }
    const limit = this.limits[method];
    const refused = limit ? this.rateLimited.take(method, [limit]) : undefined;
    if (refused)
      return sendJson(
        res,
        429,
        { ok: false, error: "ratelimited" },
        { "retry-after": String(refused.retryAfterMs / 1000) },
      );
    const answer =
      method === "files.getUploadURLExternal"
        ? this.files.getUploadURL(params)
        : method === "files.completeUploadExternal"
          ? this.files.complete(params)
          : this.workspace.call(method, params);
    if (slow) await new Promise((r) => setTimeout(r, slow));
    sendJson(res, 200, answer ?? { ok: false, error: "unknown_method" });
  }

  #takeFault(method: string): SlackFault | undefined {
    for (const key of [method, "*"]) {
      const list = this.#faults.get(key);
      if (list?.length) return list.shift();
    }
    return undefined;
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const ticket = new URL(req.url ?? "/", "http://x").searchParams.get("ticket") ?? "";
    // Socket Mode URLs are single-use tickets.
    if (!this.#tickets.delete(ticket)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#connected(ws));
  }

  #connected(socket: WebSocket): void {
    const info: SlackConnectionInfo = { id: this.#nextConnection++, openedAt: Date.now(), deaf: false };
    const c: Connection = { info, socket };
    this.connections.push(info);
    this.#open.set(info.id, c);
    socket.on("ping", (data) => {
      if (!info.deaf && this.#answerPings) socket.pong(data);
    });
    socket.on("message", (raw) => {
      if (info.deaf) return;
      try {
        const msg = JSON.parse(String(raw)) as { envelope_id?: string };
        if (msg.envelope_id) this.tracker.ack(msg.envelope_id);
      } catch {
        // not JSON: Slack ignores it too
      }
    });
    // Slack pings the app; a deaf connection sends nothing, pings included.
    const pinger =
      this.#serverPingMs > 0
        ? setInterval(() => {
            if (!info.deaf && socket.readyState === socket.OPEN) socket.ping();
          }, this.#serverPingMs)
        : undefined;
    pinger?.unref();
    socket.on("close", () => {
      clearInterval(pinger);
      info.closedAt = Date.now();
      this.#open.delete(info.id);
    });
    socket.send(
      JSON.stringify({
        type: "hello",
        num_connections: this.#open.size,
        debug_info: { host: `applink-fake-${info.id}`, build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: "A0APP" },
      }),
    );
    info.helloAt = Date.now();
    this.tracker.flush();
  }
}
