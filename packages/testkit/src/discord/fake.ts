// A local Discord: `GET /gateway/bot`, a gateway websocket (Hello with Discord's 41 250 ms
// heartbeat_interval unless a test scales it, every heartbeat ACKed as Discord does (op 11), ACKs
// that can be withheld to make a zombie, Identify -> READY, Resume replaying events after a
// sequence -> RESUMED, Reconnect, Invalid Session, any close code) and the REST routes a bot uses.
// Discord has no per-event ack; the fake counts an event acknowledged once a heartbeat carries its
// sequence (the agentsvc adapter heartbeats the last sequence it has recorded).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { readParams } from "../http-body.js";
import { answerJson as sendJson } from "../http-util.js";
import { type FakeServer, listenLocal } from "../server.js";
import { DiscordCdn } from "./cdn.js";
import { DiscordRest } from "./rest.js";
import { nextSnowflake } from "./snowflake.js";
import { type ConnectionInfo, DiscordSessions, type RestFault } from "./sessions.js";

export interface DiscordFakeOptions {
  token?: string;
  port?: number;
  /**
   * Hello's heartbeat_interval. Default 41 250 ms, what Discord announces
   * (https://discord.com/developers/docs/events/gateway#hello-event). A test that shortens it
   * divides the adapter's clocks by the same factor, so the heartbeat-to-watchdog ratio stays real.
   */
  heartbeatIntervalMs?: number;
  /** Intent bits this bot is not allowed (Identify with any of them closes 4014). */
  disallowedIntents?: number;
  /**
   * The application's `flags` in `GET /applications/@me`. Default GATEWAY_MESSAGE_CONTENT_LIMITED
   * (1 << 19): a bot in under 100 servers whose Message Content Intent toggle is on
   * (https://discord.com/developers/docs/resources/application#application-object-application-flags).
   */
  applicationFlags?: number;
}

export class DiscordFake {
  readonly token: string;
  readonly botUserId = "900000000000000001";
  readonly rest: DiscordRest;
  readonly sessions: DiscordSessions;
  /** Every REST call. */
  readonly calls: {
    method: string;
    path: string;
    body: Record<string, unknown>;
    auth: string;
    /** The User-Agent a bot must send: `DiscordBot ($url, $versionNumber)` (https://discord.com/developers/docs/reference#user-agent). */
    userAgent: string;
    at: number;
  }[] = [];
  #server!: FakeServer;
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #faults = new Map<string, RestFault[]>();
  /** `flags` of the application object; a test turns the message-content bits off. */
  applicationFlags: number;
  /** Users' attachments at signed, expiring URLs (`cdn.host(...)` gives the attachment object). */
  readonly cdn: DiscordCdn;

  private constructor(options: DiscordFakeOptions) {
    this.token = options.token ?? "fake.discord.token";
    this.applicationFlags = options.applicationFlags ?? 1 << 19;
    this.rest = new DiscordRest(() => this.nextId(), this.botUserId);
    this.sessions = new DiscordSessions({
      token: this.token,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
      disallowedIntents: options.disallowedIntents ?? 0,
      botUserId: this.botUserId,
      resumeUrl: () => `${this.#server.url.replace("http", "ws")}/resume`,
      nextId: () => this.nextId(),
      rest: this.rest,
    });
    this.rest.onCreate = (msg) => this.sessions.echoBotMessage(msg);
    this.cdn = new DiscordCdn(
      () => this.#server.url,
      () => this.nextId(),
    );
  }

  static async start(options: DiscordFakeOptions = {}): Promise<DiscordFake> {
    const fake = new DiscordFake(options);
    fake.#server = await listenLocal((req, res) => void fake.#http(req, res), options.port);
    fake.#server.server.on("upgrade", (req, socket, head) => fake.#upgrade(req, socket, head));
    return fake;
  }

  /** What an adapter takes as `apiBaseUrl`. */
  get apiBaseUrl(): string {
    return `${this.#server.url}/api/v10`;
  }

  get connections(): ConnectionInfo[] {
    return this.sessions.connections;
  }

  /** A new snowflake: later ones are larger, and none repeats after a restart. */
  nextId(): string {
    return nextSnowflake();
  }

  /** The next REST call whose `METHOD path` matches `route` (a RegExp source, or `*`) gets `fault`. */
  failNext(route: string, fault: RestFault): void {
    const list = this.#faults.get(route) ?? [];
    list.push(fault);
    this.#faults.set(route, list);
  }

  async close(): Promise<void> {
    this.sessions.closeAll();
    this.#wss.close();
    await this.#server.close();
  }

  #takeFault(method: string, path: string): RestFault | undefined {
    for (const [route, list] of this.#faults) {
      if (!list.length) continue;
      if (route === "*" || new RegExp(route).test(`${method} ${path}`)) return list.shift();
    }
    return undefined;
  }

  async #http(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname.startsWith("/attachments/")) return this.cdn.serve(url.pathname, url.searchParams, res);
    const path = url.pathname.replace(/^\/api\/v10/, "");
    const method = req.method ?? "GET";
    const body = method === "GET" ? {} : await readParams(req).catch(() => ({}) as Record<string, unknown>);
    const auth = req.headers.authorization ?? "";
    this.calls.push({ method, path, body, auth, userAgent: req.headers["user-agent"] ?? "", at: Date.now() });
    if (auth !== `Bot ${this.token}`) return sendJson(res, 401, { message: "401: Unauthorized", code: 0 });
    const fault = this.#takeFault(method, path);
    // Carried out, answer lost: a timeout or reset after Discord acted (a retry must not act twice).
    const lose = fault !== undefined && "dropAnswer" in fault;
    const answer: typeof sendJson = lose ? () => void res.socket?.destroy() : sendJson;
    if (fault && !lose) {
      if ("drop" in fault) return void res.socket?.destroy();
      if ("body" in fault) return sendJson(res, fault.status, fault.body, fault.headers);
      if ("retryAfter" in fault) {
        const retry = fault.retryAfter;
        return sendJson(
          res,
          429,
          { message: "You are being rate limited.", retry_after: retry, global: false },
          {
            "retry-after": String(Math.ceil(retry)),
            "x-ratelimit-reset-after": String(retry),
            "x-ratelimit-scope": "user",
          },
        );
      }
      return sendJson(res, fault.status, { message: "Internal Server Error", code: 0 });
    }
    if (path === "/gateway/bot" && method === "GET")
      return answer(res, 200, {
        url: `${this.#server.url.replace("http", "ws")}/gateway`,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
      });
    // The bot's own application (https://discord.com/developers/docs/resources/application#get-current-application).
    if (path === "/applications/@me" && method === "GET")
      return answer(res, 200, {
        id: this.botUserId,
        name: "agent",
        bot_public: true,
        bot_require_code_grant: false,
        flags: this.applicationFlags,
      });
    const routed = this.rest.route(method, path, body);
    if (!routed) return answer(res, 404, { message: "404: Not Found", code: 0 });
    if (routed.status === 204) {
      if (lose) return void res.socket?.destroy();
      res.writeHead(204).end();
      return;
    }
    answer(res, routed.status, routed.body, routed.headers);
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://x");
    const path = url.pathname.replace(/\/+$/, "");
    if (path !== "/gateway" && path !== "/resume") {
      socket.end("HTTP/1.1 404 Not Found\r\n\r\n");
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws: WebSocket) =>
      this.sessions.accept(ws, path, Object.fromEntries(url.searchParams)),
    );
  }
}
