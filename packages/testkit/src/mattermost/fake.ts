// A Mattermost server as a bot account sees it, on 127.0.0.1, from the API reference
// (https://api.mattermost.com/) and the WebSocket reference
// (https://developers.mattermost.com/integrate/reference/websocket/): GET /api/v4/users/me,
// POST /api/v4/posts (a `pending_post_id` seen before answers the same post), the WebSocket at
// /api/v4/websocket with its `authentication_challenge`, a `hello` carrying the `connection_id`,
// `posted` events whose `data.post` is a JSON-encoded post and `data.mentions` a JSON-encoded id
// list, a `seq` per event, `ping` answered with `seq_reply`, and a reconnect with `connection_id`
// and `sequence_number` replaying what that connection missed. A post the bot makes comes back as
// a `posted` event, as on a real server. Errors are the AppError body (`id`, `message`, `status_code`);
// a 429 carries `Retry-After` like the server's rate limiter.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { answerJson, FailureQueue, readBody } from "../http-util.js";
import { type FakeServer, listenLocal } from "../server.js";

export interface MattermostPost {
  id: string;
  channel_id: string;
  user_id: string;
  root_id: string;
  message: string;
  create_at: number;
  type: string;
  props?: Record<string, unknown>;
  pending_post_id?: string;
}

interface Frame {
  event: string;
  data: Record<string, unknown>;
  broadcast: Record<string, unknown>;
  seq: number;
}

/** One WebSocket connection's server side: its id, its next seq and what it was sent (for a resume). */
interface Conn {
  id: string;
  seq: number;
  sent: Frame[];
  ws: WebSocket | undefined;
  /** Posts sent on the open socket and not yet followed by a client frame. */
  unconfirmed: string[];
}

/** The server side of the socket is open: a client that began closing gets nothing more. */
function open(c: Conn): boolean {
  return c.ws?.readyState === 1;
}

export class MattermostFake {
  readonly token = "mm-fake-bot-token";
  readonly botUserId = "botuserid000000000000000000".slice(0, 26);
  readonly botUsername = "agentbot";
  /** Channel types by id: D direct, G group message, O open, P private. D unless set. */
  readonly channels = new Map<string, "D" | "G" | "O" | "P">();
  readonly posts: MattermostPost[] = [];
  /** Every client action received (authentication_challenge, ping, user_typing). */
  readonly actions: { action: string; seq: number; data?: Record<string, unknown> }[] = [];
  /** Connection attempts with their query (connection_id, sequence_number). */
  readonly connects: URLSearchParams[] = [];
  readonly #failures = new FailureQueue();
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #conns = new Map<string, Conn>();
  #server: FakeServer | undefined;
  #ids = 0;
  #authed = new Set<() => void>();
  #confirmations = new Map<
    string,
    { resolve: () => void; reject: (e: Error) => void; done: Promise<void> }
  >();

  static async start(): Promise<MattermostFake> {
    const fake = new MattermostFake();
    fake.#server = await listenLocal((req, res) => void fake.#http(req, res));
    fake.#server.server.on("upgrade", (req, socket, head) => fake.#upgrade(req, socket, head));
    return fake;
  }

  get url(): string {
    if (!this.#server) throw new Error("MattermostFake is not started");
    return this.#server.url;
  }

  /** Resolves once a connection is open and authenticated. */
  connected(): Promise<void> {
    if ([...this.#conns.values()].some((c) => open(c))) return Promise.resolve();
    return new Promise((r) => this.#authed.add(r));
  }

  /** The next REST call answers `status` (a 429 with `Retry-After`). */
  failNext(status: number, retryAfterSeconds?: number): void {
    this.#failures.push(status, retryAfterSeconds);
  }

  /**
   * A user posts; returns the post id and `confirmed`: resolves when the client sent a frame after the
   * event on the same connection (it kept reading past it), rejects when that connection closed first.
   */
  userPosts(
    channelId: string,
    userId: string,
    message: string,
    o: { rootId?: string; id?: string; mentions?: string[] } = {},
  ): { postId: string; confirmed: Promise<void> } {
    const post = this.#post(
      { channel_id: channelId, user_id: userId, message, root_id: o.rootId ?? "" },
      o.id,
    );
    return { postId: post.id, confirmed: this.#broadcast(post, o.mentions) };
  }

  /** The server drops every open socket (a restart, a load balancer): clients reconnect and resume. */
  dropConnections(): void {
    for (const c of this.#conns.values()) c.ws?.terminate();
  }

  /**
   * A user presses a post's button: Mattermost POSTs the action's `integration.context` with the
   * presser to `integration.url`; an answer's `update` replaces the post's message and props
   * (https://developers.mattermost.com/integrate/plugins/interactive-messages/).
   */
  async press(
    postId: string,
    actionId: string,
    userId: string,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const post = this.posts.find((p) => p.id === postId);
    const attachments = (post?.props?.attachments ?? []) as {
      actions?: { id: string; integration: { url: string; context: unknown } }[];
    }[];
    const action = attachments.flatMap((a) => a.actions ?? []).find((a) => a.id === actionId);
    if (!post || !action) throw new Error(`no button ${actionId} on ${postId}`);
    const res = await fetch(action.integration.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        user_id: userId,
        user_name: userId,
        channel_id: post.channel_id,
        post_id: post.id,
        trigger_id: `trigger-${++this.#ids}`,
        type: "",
        context: action.integration.context,
      }),
    });
    const text = await res.text();
    const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    const update = body.update as { message?: string; props?: Record<string, unknown> } | undefined;
    if (res.ok && update) {
      if (update.message !== undefined) post.message = update.message;
      if (update.props !== undefined) post.props = update.props;
    }
    return { status: res.status, body };
  }

  /** The bot's posts, in order. */
  get botPosts(): MattermostPost[] {
    return this.posts.filter((p) => p.user_id === this.botUserId);
  }

  async close(): Promise<void> {
    for (const c of this.#conns.values()) c.ws?.terminate();
    this.#wss.close();
    await this.#server?.close();
  }

  #post(p: Omit<MattermostPost, "id" | "create_at" | "type">, id?: string): MattermostPost {
    const existing = id ? this.posts.find((q) => q.id === id) : undefined;
    if (existing) return existing;
    const post: MattermostPost = {
      id: id ?? `post${String(++this.#ids).padStart(22, "0")}`,
      create_at: Date.now(),
      type: "",
      ...p,
    };
    this.posts.push(post);
    return post;
  }

  #broadcast(post: MattermostPost, mentions?: string[]): Promise<void> {
    const type = this.channels.get(post.channel_id) ?? "D";
    const data: Record<string, unknown> = {
      channel_type: type,
      channel_display_name: post.channel_id,
      sender_name: `@${post.user_id}`,
      post: JSON.stringify(post),
      ...(mentions ? { mentions: JSON.stringify(mentions) } : {}),
    };
    return this.#emit(post.id, post.channel_id, data);
  }

  /**
   * A documented `posted` event's `data` as is (`post` JSON-encoded); resolves like `userPosts`'
   * `confirmed`. The post is not stored: it is what the server would have broadcast.
   */
  pushPosted(data: Record<string, unknown>): Promise<void> {
    const post = JSON.parse(String(data.post)) as MattermostPost;
    return this.#emit(post.id, post.channel_id, data);
  }

  #emit(postId: string, channelId: string, data: Record<string, unknown>): Promise<void> {
    const done = this.#confirmation(postId);
    for (const c of this.#conns.values()) {
      const frame: Frame = {
        event: "posted",
        data,
        broadcast: { channel_id: channelId },
        seq: c.seq++,
      };
      c.sent.push(frame);
      if (open(c)) this.#sendTracked(c, frame, postId);
    }
    return done;
  }

  /** Pending until a connection reads past the post; rejected when the one it was sent on closes first. */
  #confirmation(postId: string): Promise<void> {
    const known = this.#confirmations.get(postId);
    if (known) return known.done;
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    done.catch(() => {});
    this.#confirmations.set(postId, { resolve, reject, done });
    return done;
  }

  #settle(postId: string, err?: Error): void {
    const c = this.#confirmations.get(postId);
    if (!c) return;
    this.#confirmations.delete(postId);
    if (err) c.reject(err);
    else c.resolve();
  }

  #sendTracked(c: Conn, frame: Frame, postId: string): void {
    void this.#confirmation(postId);
    c.unconfirmed.push(postId);
    c.ws?.send(JSON.stringify(frame));
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname !== "/api/v4/websocket") {
      socket.destroy();
      return;
    }
    this.connects.push(url.searchParams);
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#socket(ws, url.searchParams));
  }

  #socket(ws: WebSocket, q: URLSearchParams): void {
    let conn: Conn | undefined;
    ws.on("message", (raw) => {
      const msg = JSON.parse(String(raw)) as { action: string; seq: number; data?: Record<string, unknown> };
      this.actions.push(msg);
      if (!conn) {
        if (msg.action !== "authentication_challenge" || msg.data?.token !== this.token) {
          ws.send(
            JSON.stringify({
              status: "FAIL",
              seq_reply: msg.seq,
              error: { id: "api.web_socket_router.not_authenticated.app_error" },
            }),
          );
          ws.close(1008);
          return;
        }
        conn = this.#attach(ws, q);
        ws.send(JSON.stringify({ status: "OK", seq_reply: msg.seq }));
        return;
      }
      // A frame after an event: the client read past it.
      for (const id of conn.unconfirmed.splice(0)) this.#settle(id);
      if (msg.action === "ping")
        ws.send(JSON.stringify({ status: "OK", seq_reply: msg.seq, data: { text: "pong" } }));
      else ws.send(JSON.stringify({ status: "OK", seq_reply: msg.seq }));
    });
    ws.on("close", () => {
      if (!conn || conn.ws !== ws) return;
      conn.ws = undefined;
      for (const id of conn.unconfirmed.splice(0))
        this.#settle(id, new Error(`connection closed before ${id} was read past`));
    });
  }

  /**
   * A known connection_id resumes: the events from `sequence_number` on are sent again, with no
   * `hello` (the server's "reliable websockets", MM-32950: a reused connection gets no hello; its
   * seqs go on). Anything else is a new connection whose `hello` is seq 0, as Mattermost's client
   * expects: it sends `sequence_number` as the next seq it wants and resets to 0 on a new
   * connection_id (https://github.com/mattermost/mattermost/blob/master/webapp/platform/client/src/websocket.ts).
   */
  #attach(ws: WebSocket, q: URLSearchParams): Conn {
    const known = this.#conns.get(q.get("connection_id") ?? "");
    const from = Number(q.get("sequence_number") ?? Number.NaN);
    let conn: Conn;
    if (known && !open(known) && Number.isInteger(from) && from >= 0 && from <= known.seq) {
      conn = known;
      conn.ws = ws;
      for (const f of conn.sent.filter((f) => f.seq >= from)) {
        const post = JSON.parse(String(f.data.post)) as MattermostPost;
        this.#sendTracked(conn, f, post.id);
      }
    } else {
      conn = { id: `conn-${++this.#ids}`, seq: 0, sent: [], ws, unconfirmed: [] };
      this.#conns.set(conn.id, conn);
      ws.send(
        JSON.stringify({
          event: "hello",
          data: { connection_id: conn.id, server_version: "9.11.0" },
          broadcast: { user_id: this.botUserId },
          seq: conn.seq++,
        }),
      );
    }
    for (const r of this.#authed) r();
    this.#authed.clear();
    return conn;
  }

  async #http(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? "/", "http://x");
    const appError = (status: number, id: string, message: string) =>
      answerJson(res, status, { id, message, detailed_error: "", request_id: "fake", status_code: status });
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      appError(
        401,
        "api.context.session_expired.app_error",
        "Invalid or expired session, please login again.",
      );
      return;
    }
    if (this.#failures.answer(res, (s) => ({ id: "fake.injected", message: "injected", status_code: s })))
      return;
    if (req.method === "GET" && url.pathname === "/api/v4/users/me") {
      answerJson(res, 200, { id: this.botUserId, username: this.botUsername, is_bot: true });
      return;
    }
    if (req.method === "POST" && url.pathname === "/api/v4/posts") {
      const p = JSON.parse(body.toString("utf8")) as Partial<MattermostPost>;
      const seen = p.pending_post_id
        ? this.posts.find((q) => q.pending_post_id === p.pending_post_id)
        : undefined;
      if (seen) return answerJson(res, 201, seen);
      if (!p.channel_id)
        return appError(
          400,
          "api.context.invalid_body_param.app_error",
          "Invalid or missing post in request body.",
        );
      const post = this.#post({
        channel_id: p.channel_id,
        user_id: this.botUserId,
        root_id: p.root_id ?? "",
        message: p.message ?? "",
        ...(p.props ? { props: p.props } : {}),
        ...(p.pending_post_id ? { pending_post_id: p.pending_post_id } : {}),
      });
      answerJson(res, 201, post);
      void this.#broadcast(post).catch(() => {});
      return;
    }
    appError(404, "api.context.404.app_error", "Sorry, we could not find the page.");
  }
}
