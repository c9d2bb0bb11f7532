// The matrix gateway: /sync in (sync.ts, inbound.ts), PUT send out with the outbox key as the
// transaction id, so a retried piece is one event (https://spec.matrix.org/latest/client-server-api/#transaction-identifiers).
// Replies carry a plain `body` and an `org.matrix.custom.html` `formatted_body`, both rendered from
// the Markdown tree (#mroommessage-msgtypes); in a thread they carry the m.thread relation (#threading).
import {
  type BackoffOptions,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type PlatformApi,
  readSecrets,
  type SendOptions,
  type SendResult,
  splitThread,
} from "@agentsvc/adapter-kit";
import { parseDuration } from "@agentsvc/config-schema/adapter";
import { mailPieces, toMailHtml, toMailText } from "@agentsvc/markdown";
import { matrixApi } from "./api.js";
import { readEvent } from "./inbound.js";
import type { MatrixEntry } from "./schema.js";
import { matrixPoller, type SyncItem } from "./sync.js";

/** Kept well under the 65 536-byte event limit (#size-limits) with both renderings in one event. */
export const MESSAGE_LIMIT = 8_000;

export type MatrixGatewayOptions = MatrixEntry & {
  name: string;
  env: Readonly<Record<string, string | undefined>>;
  /** /sync `timeout`. Default 30 000 ms. */
  pollTimeoutMs?: number;
  pollGraceMs?: number;
  backoff?: BackoffOptions;
  requestTimeoutMs?: number;
  /** The entry's `deafAfter` ("10m"): /sync works but nothing came for that long -> warn, restart. */
  deafAfter?: string;
};

const REQUEST_KEY = (eventId: string) => `request:${eventId}`;

export class MatrixGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "matrix";
  readonly name: string;
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: false, typing: true };
  readonly messageLimit = MESSAGE_LIMIT;
  readonly #o: MatrixGatewayOptions;
  #api: PlatformApi | undefined;
  #ctx: GatewayContext | undefined;
  #botId: string | undefined;
  readonly #counts = new Map<string, number>();

  constructor(options: MatrixGatewayOptions) {
    this.#o = options;
    this.name = options.name;
  }

  async start(ctx: GatewayContext): Promise<void> {
    const { token } = readSecrets(
      ctx,
      { token: this.#o.accessTokenEnvVar },
      { env: this.#o.env, gateway: "matrix", describe: { token: "the bot account's access token" } },
    );
    const deafAfterMs = this.#o.deafAfter ? parseDuration(this.#o.deafAfter) : undefined;
    const envVar = this.#o.accessTokenEnvVar;
    this.#api = matrixApi(this.#o.homeserverUrl, token, envVar, this.#o.requestTimeoutMs ?? 15_000);
    this.#ctx = ctx;
    const poll = matrixPoller(
      this.#api,
      ctx,
      {
        envVar,
        pollTimeoutMs: this.#o.pollTimeoutMs ?? 30_000,
        graceMs: this.#o.pollGraceMs ?? 10_000,
        backoff: this.#o.backoff ?? { baseMs: 1_000, maxMs: 60_000 },
        ...(deafAfterMs !== undefined ? { deafAfterMs } : {}),
      },
      (signal) => this.#identify(signal),
      (item) => this.#handle(item),
    );
    ctx.scheduler.schedule("poll", 0, poll);
  }

  async stop(): Promise<void> {
    this.#ctx = undefined;
  }

  /** The bot's own user id (#get_matrixclientv3accountwhoami): its events are ignored, its mentions gate groups. */
  async #identify(signal: AbortSignal): Promise<void> {
    if (this.#botId) return;
    const me = await this.#apiOf().call<{ user_id: string }>("whoami", "GET", "/account/whoami", { signal });
    this.#botId = me.user_id;
  }

  async #handle(item: Extract<SyncItem, { kind: "event" }>): Promise<void> {
    const ctx = this.#ctx;
    if (!ctx) throw new Error("matrix gateway stopped");
    const reading = readEvent(item.roomId, await this.#members(item), item.event, this.#botId ?? "");
    if (reading.kind === "message") {
      await ctx.deliver(reading.inbound);
      return;
    }
    if (reading.kind === "reaction") {
      const requestId = await ctx.state.get<string>(REQUEST_KEY(reading.to));
      if (!requestId) {
        ctx.logger.info({ reason: "reaction to a message that asked nothing" }, "matrix reaction ignored");
        return;
      }
      // Servers do not hold a relation to its target's room: a reaction sent in another room, by
      // someone not there, naming the request's event id, decides nothing.
      const request = await ctx.interaction(requestId);
      if (!request || splitThread(request.thread).container !== item.roomId) {
        ctx.logger.warn(
          { roomId: item.roomId, requestId },
          "matrix reaction from another room than the request's; ignored",
        );
        return;
      }
      const result = await ctx.decide(requestId, { decision: reading.decision }, reading.by);
      if (!result.ok)
        ctx.logger.info({ reason: `decision refused: ${result.code}` }, "matrix reaction not applied");
      return;
    }
    ctx.logger.debug({ reason: reading.reason, eventId: item.event.event_id }, "matrix event ignored");
  }

  /**
   * A room's joined member count: /sync sends it only when it changed (#get_matrixclientv3sync,
   * RoomSummary), so the last one seen is kept in the gateway's state. Unknown: undefined (a group).
   */
  async #members(item: Extract<SyncItem, { kind: "event" }>): Promise<number | undefined> {
    const state = this.#ctx?.state;
    const key = `members:${item.roomId}`;
    if (item.members === undefined) return this.#counts.get(item.roomId) ?? (await state?.get<number>(key));
    if (this.#counts.get(item.roomId) !== item.members) await state?.set(key, item.members);
    this.#counts.set(item.roomId, item.members);
    return item.members;
  }

  /** Cut on the Markdown tree; each piece fits both its text and its HTML rendering. */
  chunk(markdown: string): string[] {
    return mailPieces(markdown, MESSAGE_LIMIT);
  }

  async send(thread: string, text: string, options: SendOptions): Promise<SendResult> {
    const { container: roomId, root } = splitThread(thread);
    const content = {
      msgtype: "m.text",
      body: toMailText(text),
      format: "org.matrix.custom.html",
      formatted_body: toMailHtml(text),
      // Mentions nobody (#user-and-room-mentions): with `m.mentions` present, servers and clients
      // no longer read "@room" or a user's name in the body as a ping, so a reply that repeats what
      // someone typed cannot notify the room with the bot's power level.
      "m.mentions": {},
      // A thread reply falls back to a reply to the root for clients without threads (#fallback-for-unthreaded-clients).
      ...(root
        ? {
            "m.relates_to": {
              rel_type: "m.thread",
              event_id: root,
              is_falling_back: true,
              "m.in_reply_to": { event_id: root },
            },
          }
        : {}),
    };
    const path = `/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${encodeURIComponent(options.idempotencyKey)}`;
    const { event_id } = await this.#apiOf().send<{ event_id: string }>("send", "PUT", path, {
      body: content,
    });
    // A text approval request: a 👍/👎 reaction to it decides, like the typed reply.
    if (options.requestId) await this.#ctx?.state.set(REQUEST_KEY(event_id), options.requestId);
    return { messageId: event_id };
  }

  async startTyping(thread: string): Promise<void> {
    if (!this.#botId) return;
    const { container: roomId } = splitThread(thread);
    const path = `/rooms/${encodeURIComponent(roomId)}/typing/${encodeURIComponent(this.#botId)}`;
    await this.#apiOf().send("typing", "PUT", path, { body: { typing: true, timeout: 30_000 } });
  }

  #apiOf(): PlatformApi {
    if (!this.#api) throw new Error("matrix gateway not started");
    return this.#api;
  }
}

export const createGateway = (options: MatrixGatewayOptions) => new MatrixGateway(options);
