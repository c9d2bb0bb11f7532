// A Matrix homeserver's client-server API as a bot sees it, on 127.0.0.1, from the spec
// (https://spec.matrix.org/latest/client-server-api/): GET /sync with since/timeout (a long-poll that
// answers as soon as an event arrives, next_batch as the position), PUT send with txnId idempotency
// (#transaction-identifiers: the same txnId from the same access token is the same event), PUT typing,
// GET /account/whoami, and the standard errors (#standard-error-response): 401 M_UNKNOWN_TOKEN,
// 429 M_LIMIT_EXCEEDED with retry_after_ms. A sent event comes back in /sync like any other, as on a real server.
import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpFake } from "../http-fake.js";
import { answerJson, readBody } from "../http-util.js";

export interface MatrixEvent {
  event_id: string;
  type: string;
  sender: string;
  room_id: string;
  origin_server_ts: number;
  content: Record<string, unknown>;
}

export interface MatrixSent {
  roomId: string;
  eventId: string;
  txnId: string;
  type: string;
  content: Record<string, unknown>;
}

const API = "/_matrix/client/v3";

export class MatrixFake extends HttpFake {
  readonly token = "syt_fake_bot_token";
  readonly userId = "@bot:fake.local";
  /** Every event in the server's order; a position is an index + 1, `next_batch` is `s<position>`. */
  readonly events: MatrixEvent[] = [];
  readonly sent: MatrixSent[] = [];
  readonly typing: { roomId: string; typing: boolean }[] = [];
  /** Joined members per room (`summary.m.joined_member_count`); 2 unless set. */
  readonly members = new Map<string, number>();
  /** Every /sync query as received (since, timeout, filter). */
  readonly syncs: URLSearchParams[] = [];
  #txns = new Map<string, string>();
  #summarized = new Map<string, number>();
  #limits: number[] = [];
  #waiters = new Set<() => void>();
  #confirmed = 0;
  #confirmWaiters: { position: number; resolve: () => void }[] = [];
  #firstSync: Promise<void>;
  #sawFirstSync!: () => void;
  #seq = 0;

  private constructor() {
    super();
    this.#firstSync = new Promise((r) => {
      this.#sawFirstSync = r;
    });
  }

  static async start(): Promise<MatrixFake> {
    const fake = new MatrixFake();
    await fake.listen();
    return fake;
  }

  /** Resolves once the bot asked /sync the first time (its starting position is taken). */
  firstSync(): Promise<void> {
    return this.#firstSync;
  }

  /** A user writes into `roomId`; returns the event id. */
  userSends(
    roomId: string,
    sender: string,
    content: Record<string, unknown>,
    type = "m.room.message",
  ): string {
    return this.#append({ roomId, sender, type, content });
  }

  /** A documented event payload (ClientEventWithoutRoomID) as is, into `roomId` of `members` joined members. */
  pushEvent(roomId: string, event: Omit<MatrixEvent, "room_id">, members?: number): string {
    if (members !== undefined) this.members.set(roomId, members);
    this.events.push({ ...event, room_id: roomId });
    for (const wake of this.#waiters) wake();
    return event.event_id;
  }

  /** Resolves when a /sync came with a `since` at or past `eventId` (the bot confirmed it). */
  confirmed(eventId: string): Promise<void> {
    const position = this.events.findIndex((e) => e.event_id === eventId) + 1;
    if (position === 0) return Promise.reject(new Error(`no event ${eventId}`));
    if (this.#confirmed >= position) return Promise.resolve();
    return new Promise((resolve) => this.#confirmWaiters.push({ position, resolve }));
  }

  /** The next call but /sync answers 429 M_LIMIT_EXCEEDED with `retry_after_ms` (`failNext` likewise). */
  limitNext(retryAfterMs: number): void {
    this.#limits.push(retryAfterMs);
  }

  #append(e: { roomId: string; sender: string; type: string; content: Record<string, unknown> }): string {
    const event: MatrixEvent = {
      event_id: `$ev${++this.#seq}-${Math.random().toString(36).slice(2, 8)}`,
      type: e.type,
      sender: e.sender,
      room_id: e.roomId,
      origin_server_ts: Date.now(),
      content: e.content,
    };
    this.events.push(event);
    for (const wake of this.#waiters) wake();
    return event.event_id;
  }

  protected async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const body = await readBody(req);
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      answerJson(res, 401, { errcode: "M_UNKNOWN_TOKEN", error: "Invalid access token passed." });
      return;
    }
    // Injected failures hit the bot's calls, not the long-poll waiting in the background (a test
    // that wants a failed sync sends a wrong token).
    const path = url.pathname;
    if (path !== `${API}/sync`) {
      const limit = this.#limits.shift();
      if (limit !== undefined) {
        answerJson(res, 429, {
          errcode: "M_LIMIT_EXCEEDED",
          error: "Too many requests",
          retry_after_ms: limit,
        });
        return;
      }
      const injected = (s: number) => ({
        errcode: s === 429 ? "M_LIMIT_EXCEEDED" : "M_UNKNOWN",
        error: "injected",
      });
      if (this.failures.answer(res, injected)) return;
    }
    if (req.method === "GET" && path === `${API}/account/whoami`) {
      answerJson(res, 200, { user_id: this.userId, device_id: "FAKEDEVICE" });
      return;
    }
    if (req.method === "GET" && path === `${API}/sync`) return this.#sync(url.searchParams, res);
    const send = path.match(/^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/([^/]+)\/([^/]+)$/);
    if (req.method === "PUT" && send) {
      const [roomId, type, txnId] = send.slice(1).map(decodeURIComponent) as [string, string, string];
      const known = this.#txns.get(txnId);
      if (known) return answerJson(res, 200, { event_id: known });
      const content = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
      const eventId = this.#append({ roomId, sender: this.userId, type, content });
      this.#txns.set(txnId, eventId);
      this.sent.push({ roomId, eventId, txnId, type, content });
      answerJson(res, 200, { event_id: eventId });
      return;
    }
    const typing = path.match(/^\/_matrix\/client\/v3\/rooms\/([^/]+)\/typing\/([^/]+)$/);
    if (req.method === "PUT" && typing) {
      const t = JSON.parse(body.toString("utf8")) as { typing: boolean };
      this.typing.push({ roomId: decodeURIComponent(typing[1] as string), typing: t.typing });
      answerJson(res, 200, {});
      return;
    }
    answerJson(res, 404, { errcode: "M_UNRECOGNIZED", error: "Unrecognized request" });
  }

  async #sync(q: URLSearchParams, res: ServerResponse): Promise<void> {
    this.syncs.push(q);
    this.#sawFirstSync();
    const since = q.has("since") ? Number(q.get("since")?.replace(/^s/, "")) : 0;
    if (since > this.#confirmed) this.#confirmed = since;
    for (const w of this.#confirmWaiters.filter((w) => w.position <= this.#confirmed)) w.resolve();
    this.#confirmWaiters = this.#confirmWaiters.filter((w) => w.position > this.#confirmed);
    // Without since the server answers at once with the current position (a first sync).
    const timeout = q.has("since") ? Number(q.get("timeout") ?? 0) : 0;
    if (this.events.length <= since && timeout > 0) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, timeout);
        this.#waiters.add(wake);
        res.on("close", wake);
      });
    }
    const fresh = q.has("since") ? this.events.slice(since) : [];
    const join: Record<string, unknown> = {};
    for (const e of fresh) {
      // The summary "may be omitted if it has not changed since the last sync": sent on a change only.
      const count = this.members.get(e.room_id) ?? 2;
      const changed = this.#summarized.get(e.room_id) !== count;
      this.#summarized.set(e.room_id, count);
      join[e.room_id] ??= {
        ...(changed ? { summary: { "m.joined_member_count": count } } : {}),
        timeline: { events: [], limited: false },
      };
      const room = join[e.room_id] as { timeline: { events: unknown[] } };
      const { room_id: _, ...event } = e;
      room.timeline.events.push(event);
    }
    answerJson(res, 200, { next_batch: `s${this.events.length}`, rooms: { join } });
  }
}
