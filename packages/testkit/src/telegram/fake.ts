// A local Telegram Bot API: `/bot<token>/<method>` on 127.0.0.1 with getUpdates long-poll and real
// offset semantics (an update is confirmed once getUpdates is called with a higher offset), the
// send/edit/answer methods a bot uses, and faults on command (409 both ways, 429, 5xx, dropped or
// hung requests). `allowed_updates` is kept like the Bot API keeps it: a getUpdates that names it
// replaces the setting, one that omits it keeps the previous one, and the default is every kind
// except chat_member, message_reaction and message_reaction_count
// (https://core.telegram.org/bots/api#getupdates). Updates of other kinds are withheld.
import type { IncomingMessage, ServerResponse } from "node:http";
import { readParams } from "../http-body.js";
import { type RateLimit, RateWindow } from "../rate-window.js";
import { answerJson as sendJson } from "../http-util.js";
import { type FakeServer, listenLocal } from "../server.js";
import { TelegramChat } from "./chat.js";
import { TelegramFiles } from "./files.js";
import type { TelegramApiCall, TelegramFault, TelegramUser, Update, WithheldUpdate } from "./types.js";

/** Kinds a bot gets when it never named `allowed_updates` (or named an empty list). */
const NOT_BY_DEFAULT = new Set(["chat_member", "message_reaction", "message_reaction_count"]);

export interface TelegramFakeOptions {
  token?: string;
  port?: number;
  /** The bot's own user (getMe). */
  bot?: TelegramUser;
}

interface Waiter {
  res: ServerResponse;
  timer: NodeJS.Timeout;
  limit: number;
}

const CONFLICT_POLLER =
  "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running";
const CONFLICT_WEBHOOK =
  "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";

/**
 * Telegram's limits for a bot's messages in one chat
 * (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this): "avoid sending
 * more than one message per second" in a chat, short bursts tolerated, then 429s (here: 10 in any
 * 10 s, one a second with a burst of ten, as a long reply's pieces are); "not able to send
 * more than 20 messages per minute to the same group". A 429 names the wait in
 * `parameters.retry_after` (https://core.telegram.org/bots/api#responseparameters). Sends and edits
 * count; drafts (sendMessageDraft) have no documented limit and do not.
 */
export const TELEGRAM_CHAT_LIMITS: { perChat: RateLimit; perGroup: RateLimit } = {
  perChat: { calls: 10, perMs: 10_000 },
  perGroup: { calls: 20, perMs: 60_000 },
};

const LIMITED_METHODS = new Set(["sendMessage", "editMessageText", "sendPhoto", "sendDocument"]);

export class TelegramFake {
  readonly token: string;
  readonly bot: TelegramUser;
  /** Every API call the bot made, in order (faulted ones too). */
  readonly calls: TelegramApiCall[] = [];
  /** Chats, messages, buttons and callback queries: the platform's side of the conversation. */
  readonly chat: TelegramChat;
  /** Files users sent (served by getFile and `/file/bot<token>/<path>`) and files the bot uploaded. */
  readonly files: TelegramFiles;
  /** The chat limits the fake enforces (a test may lower them to force 429s). */
  limits = { ...TELEGRAM_CHAT_LIMITS };
  /** Sends and edits refused for a chat's rate limit (key: the chat id). */
  readonly rateLimited = new RateWindow();
  #server!: FakeServer;
  #updates: Update[] = [];
  #nextUpdateId = 1;
  #confirmedBelow = 0;
  #confirmWaiters: { id: number; resolve: () => void }[] = [];
  #waiter: Waiter | undefined;
  #faults = new Map<string, TelegramFault[]>();
  #webhookUrl = "";
  #allowed: Set<string> | undefined;
  #revoked = false;
  /** Updates not handed out because the bot's `allowed_updates` excludes their kind. */
  readonly withheld: WithheldUpdate[] = [];

  private constructor(options: TelegramFakeOptions) {
    this.token = options.token ?? "123456:TEST-token";
    this.bot = options.bot ?? { id: 999, is_bot: true, first_name: "Agent", username: "agentsvc_bot" };
    this.chat = new TelegramChat((update) => this.#push(update), this.bot);
    this.files = new TelegramFiles(() => this.chat.nextMessageId());
  }

  static async start(options: TelegramFakeOptions = {}): Promise<TelegramFake> {
    const fake = new TelegramFake(options);
    fake.#server = await listenLocal((req, res) => void fake.#handle(req, res), options.port);
    return fake;
  }

  /** What an adapter takes as `apiBaseUrl`. */
  get url(): string {
    return this.#server.url;
  }

  /** The next call of `method` (or `*`: any method) gets `fault` instead of an answer. */
  failNext(method: string, fault: TelegramFault): void {
    const list = this.#faults.get(method) ?? [];
    list.push(fault);
    this.#faults.set(method, list);
  }

  /** The token is revoked (@BotFather /revoke): every call answers 401 Unauthorized from now on. */
  revokeToken(): void {
    this.#revoked = true;
  }

  /** A webhook is set: getUpdates answers 409 until deleteWebhook. */
  setWebhook(url: string): void {
    this.#webhookUrl = url;
  }

  /** Resolves once `updateId` is confirmed (getUpdates called with a higher offset). */
  confirmed(updateId: number): Promise<void> {
    if (updateId < this.#confirmedBelow) return Promise.resolve();
    return new Promise((resolve) => this.#confirmWaiters.push({ id: updateId, resolve }));
  }

  /** Updates not yet confirmed. */
  get unconfirmed(): Update[] {
    return [...this.#updates];
  }

  async close(): Promise<void> {
    if (this.#waiter) clearTimeout(this.#waiter.timer);
    await this.#server.close();
  }

  /**
   * Telegram sends `body` (an Update without its `update_id`, e.g. a documented payload) to the bot;
   * returns the update id, or -1 when the bot's `allowed_updates` withholds it (see `withheld`).
   * A `callback_query` in it can be answered once, as a press through `chat.press` can.
   */
  pushUpdate(body: Record<string, unknown>): number {
    const { update_id: _ignored, ...rest } = body;
    const query = rest.callback_query as { id?: unknown } | undefined;
    if (query && typeof query.id === "string") this.chat.callbackAnswers.set(query.id, undefined);
    return this.#push(rest as Omit<Update, "update_id">);
  }

  #push(body: Omit<Update, "update_id">): number {
    const update = { update_id: this.#nextUpdateId++, ...body } as Update;
    const kind = Object.keys(body)[0] ?? "";
    const allowed = this.#allowed ? this.#allowed.has(kind) : !NOT_BY_DEFAULT.has(kind);
    if (!allowed) {
      this.withheld.push({ update, reason: `${kind} is not in the bot's allowed_updates` });
      return -1;
    }
    this.#updates.push(update);
    this.#wake();
    return update.update_id;
  }

  #wake(): void {
    const w = this.#waiter;
    if (!w || this.#updates.length === 0) return;
    this.#waiter = undefined;
    clearTimeout(w.timer);
    sendJson(w.res, 200, { ok: true, result: this.#updates.slice(0, w.limit) });
  }

  #takeFault(method: string): TelegramFault | undefined {
    for (const key of [method, "*"]) {
      const list = this.#faults.get(key);
      if (list?.length) return list.shift();
    }
    return undefined;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(new URL(req.url ?? "/", this.url).pathname);
    if (file) return this.#download(file[1] as string, file[2] as string, res);
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(new URL(req.url ?? "/", this.url).pathname);
    if (!m) return sendJson(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    let params: Record<string, unknown>;
    try {
      params = await readParams(req);
    } catch {
      return sendJson(res, 400, { ok: false, error_code: 400, description: "Bad Request: invalid JSON" });
    }
    const method = m[2] as string;
    this.calls.push({ method, params, at: Date.now() });
    if (m[1] !== this.token || this.#revoked)
      return sendJson(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
    const fault = this.#takeFault(method);
    if (fault) return this.#fault(res, fault);
    if (method === "getUpdates") return this.#getUpdates(params, res);
    if (method === "getMe") return sendJson(res, 200, { ok: true, result: this.bot });
    if (LIMITED_METHODS.has(method) && params.chat_id !== undefined) {
      const chatId = Number(params.chat_id);
      const limits = chatId < 0 ? [this.limits.perChat, this.limits.perGroup] : [this.limits.perChat];
      const refused = this.rateLimited.take(String(chatId), limits);
      if (refused) return this.#fault(res, { status: 429, retryAfter: refused.retryAfterMs / 1000 });
    }
    if (method === "deleteWebhook" || method === "setWebhook") {
      this.#webhookUrl = method === "setWebhook" ? String(params.url ?? "") : "";
      return sendJson(res, 200, { ok: true, result: true });
    }
    const answer =
      method === "getFile"
        ? this.files.getFile(params)
        : method === "sendPhoto" || method === "sendDocument"
          ? this.files.upload(method, params)
          : this.chat.call(method, params, this.bot);
    if (!answer) return sendJson(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    if (answer.ok) return sendJson(res, 200, { ok: true, result: answer.result });
    sendJson(res, answer.status, { ok: false, error_code: answer.status, description: answer.description });
  }

  /** A file download: the token in the path, the bytes as stored, 404 for an unknown or expired link. */
  #download(token: string, path: string, res: ServerResponse): void {
    this.calls.push({ method: "file", params: { path }, at: Date.now() });
    if (token !== this.token || this.#revoked) {
      sendJson(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
      return;
    }
    const bytes = this.files.download(decodeURIComponent(path));
    if (!bytes) {
      sendJson(res, 404, { ok: false, error_code: 404, description: "Not Found" });
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
    const stall = this.files.takeStall();
    if (stall) {
      res.write(bytes.subarray(0, stall.at), () => stall.reached());
      return; // the rest never comes; the connection stays open until the client goes
    }
    res.end(bytes);
  }

  #fault(res: ServerResponse, fault: TelegramFault): void {
    if ("drop" in fault) return void res.socket?.destroy();
    if ("hang" in fault) return; // the request stays open until the client gives up
    if (fault.status === 429) {
      sendJson(res, 429, {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${fault.retryAfter}`,
        parameters: { retry_after: fault.retryAfter },
      });
      return;
    }
    if (fault.status === 409) {
      sendJson(res, 409, {
        ok: false,
        error_code: 409,
        description: fault.reason === "webhook" ? CONFLICT_WEBHOOK : CONFLICT_POLLER,
      });
      return;
    }
    sendJson(res, fault.status, {
      ok: false,
      error_code: fault.status,
      description: "description" in fault ? fault.description : "Internal Server Error",
    });
  }

  #getUpdates(params: Record<string, unknown>, res: ServerResponse): void {
    if (this.#webhookUrl) {
      sendJson(res, 409, { ok: false, error_code: 409, description: CONFLICT_WEBHOOK });
      return;
    }
    // A second poller terminates the first one, as the real API does.
    const previous = this.#waiter;
    if (previous) {
      this.#waiter = undefined;
      clearTimeout(previous.timer);
      sendJson(previous.res, 409, { ok: false, error_code: 409, description: CONFLICT_POLLER });
    }
    if (Array.isArray(params.allowed_updates))
      this.#allowed =
        params.allowed_updates.length > 0 ? new Set(params.allowed_updates.map(String)) : undefined;
    const offset = Number(params.offset ?? 0);
    if (offset > 0) this.#confirm(offset);
    // "A negative offset can be specified to retrieve updates starting from -offset update from the
    // end of the updates queue. All previous updates will be forgotten."
    else if (offset < 0) {
      const kept = this.#updates.slice(offset);
      if (kept[0]) this.#confirm(kept[0].update_id);
    }
    const limit = Math.min(100, Math.max(1, Number(params.limit ?? 100)));
    const timeout = Math.max(0, Number(params.timeout ?? 0));
    if (this.#updates.length > 0 || timeout === 0) {
      sendJson(res, 200, { ok: true, result: this.#updates.slice(0, limit) });
      return;
    }
    const waiter: Waiter = {
      res,
      limit,
      timer: setTimeout(() => {
        if (this.#waiter === waiter) this.#waiter = undefined;
        sendJson(res, 200, { ok: true, result: [] });
      }, timeout * 1000),
    };
    this.#waiter = waiter;
    // A client that gave up (aborted, timed out) is no longer a poller.
    res.on("close", () => {
      if (this.#waiter === waiter) {
        clearTimeout(waiter.timer);
        this.#waiter = undefined;
      }
    });
  }

  /** Every update below `offset` is confirmed for good: a later, lower offset never brings one back. */
  #confirm(offset: number): void {
    if (offset <= this.#confirmedBelow) return;
    this.#confirmedBelow = offset;
    this.#updates = this.#updates.filter((u) => u.update_id >= offset);
    const due = this.#confirmWaiters.filter((w) => w.id < offset);
    this.#confirmWaiters = this.#confirmWaiters.filter((w) => w.id >= offset);
    for (const w of due) w.resolve();
  }
}
