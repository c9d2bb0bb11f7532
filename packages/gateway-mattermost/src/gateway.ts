// The mattermost gateway: WebSocket events in (socket.ts, inbound.ts), REST posts out
// (POST /api/v4/posts, https://api.mattermost.com/#tag/posts/operation/CreatePost) with `root_id`
// for a thread and the outbox key as `pending_post_id`, so a retried piece is one post. Mattermost
// renders Markdown itself (https://docs.mattermost.com/collaborate/format-messages.html): replies are
// sent as written. Errors are the AppError body (`id`, `message`, `status_code`).
import {
  chunkText,
  type FailureFacts,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type InteractionRequest,
  type BackoffOptions,
  PlatformCallError,
  PlatformClient,
  readSecrets,
  type SendOptions,
  type SendResult,
  type WebhookRoute,
} from "@agentsvc/adapter-kit";
import { buttonsFor, pressed } from "./buttons.js";
import { type Bot, parseThread, readPosted } from "./inbound.js";
import { MattermostSocket } from "./socket.js";

/** A post's message holds at most 16 383 characters (the server's default MaxPostSize). */
export const MESSAGE_LIMIT = 16_383;

export interface MattermostGatewayOptions {
  name: string;
  tokenEnvVar: string;
  serverUrl: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Approvals as buttons: the secret signing their context (needs the server's publicBaseUrl). */
  actionSecretEnvVar?: string;
  backoff?: BackoffOptions;
  requestTimeoutMs?: number;
}

function bodyFailure(body: unknown, status: number): FailureFacts | undefined {
  const b = body as { id?: unknown; message?: unknown };
  if (status < 400 || typeof b.id !== "string") return undefined;
  return { detail: `${b.id}${typeof b.message === "string" ? `: ${b.message}` : ""}` };
}

export class MattermostGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "mattermost";
  readonly name: string;
  readonly capabilities: GatewayCapabilities;
  readonly webhooks: readonly WebhookRoute[] | undefined;
  readonly messageLimit = MESSAGE_LIMIT;
  readonly #o: MattermostGatewayOptions;
  readonly #base: string;
  #client: PlatformClient | undefined;
  #token = "";
  #socket: MattermostSocket | undefined;
  /** The bot's own id and username (GET /users/me): its posts are ignored, its mentions gate channels. */
  #bot: Bot | undefined;
  #actions: { url: string; secret: string; ctx: GatewayContext } | undefined;

  constructor(options: MattermostGatewayOptions) {
    this.#o = options;
    this.name = options.name;
    this.#base = `${options.serverUrl.replace(/\/+$/, "")}/api/v4`;
    const buttons = options.actionSecretEnvVar !== undefined;
    this.capabilities = { threads: true, interactiveActions: buttons, typing: true };
    this.webhooks = buttons ? [{ method: "POST", handle: (r) => this.#press(r.rawBody) }] : undefined;
  }

  async start(ctx: GatewayContext): Promise<void> {
    const { token } = readSecrets(
      ctx,
      { token: this.#o.tokenEnvVar },
      { env: this.#o.env, gateway: "mattermost", describe: { token: "the bot account's access token" } },
    );
    this.#token = token;
    if (this.#o.actionSecretEnvVar) {
      const { secret } = readSecrets(
        ctx,
        { secret: this.#o.actionSecretEnvVar },
        {
          env: this.#o.env,
          gateway: "mattermost",
          describe: { secret: "the secret signing approval buttons" },
        },
      );
      if (!ctx.publicBaseUrl)
        throw new Error("mattermost: actionSecretEnvVar needs the server's publicBaseUrl (buttons call it)");
      const url = `${ctx.publicBaseUrl.replace(/\/+$/, "")}/webhooks/${this.type}`;
      this.#actions = { url, secret, ctx };
    }
    this.#client = new PlatformClient({
      platform: "mattermost",
      timeoutMs: this.#o.requestTimeoutMs ?? 15_000,
      bodyFailure,
    });
    const socket = new MattermostSocket(ctx, {
      url: this.#o.serverUrl,
      token,
      envVar: this.#o.tokenEnvVar,
      backoff: this.#o.backoff ?? { baseMs: 1_000, maxMs: 60_000 },
      identify: async (signal) => {
        this.#bot ??= await this.#call<Bot>("users/me", "GET", "/users/me", undefined, signal);
      },
      onEvent: async (event, data) => {
        if (event !== "posted" || !this.#bot) return;
        const reading = readPosted(data, this.#bot);
        if (reading.kind === "message") await ctx.deliver(reading.inbound);
        else ctx.logger.debug({ reason: reading.reason }, "mattermost post ignored");
      },
    });
    this.#socket = socket;
    await socket.start();
  }

  async stop(): Promise<void> {
    const socket = this.#socket;
    this.#socket = undefined;
    await socket?.stop();
  }

  chunk(markdown: string): string[] {
    return chunkText(markdown, MESSAGE_LIMIT);
  }

  async send(thread: string, text: string, options: SendOptions): Promise<SendResult> {
    const { channelId, root } = parseThread(thread);
    const post = await this.#call<{ id: string }>("posts", "POST", "/posts", {
      channel_id: channelId,
      message: text,
      ...(root ? { root_id: root } : {}),
      pending_post_id: options.idempotencyKey,
    });
    return { messageId: post.id };
  }

  /** An approval as a post with buttons (when `actionSecretEnvVar` is set). */
  async requestDecision(request: InteractionRequest, options: SendOptions): Promise<SendResult> {
    const a = this.#actions;
    if (!a) throw new Error("mattermost buttons are not configured");
    const { channelId, root } = parseThread(request.thread);
    const post = await this.#call<{ id: string }>("posts", "POST", "/posts", {
      channel_id: channelId,
      message: "",
      ...(root ? { root_id: root } : {}),
      props: buttonsFor(request, channelId, a.url, a.secret),
      pending_post_id: options.idempotencyKey,
    });
    return { messageId: post.id };
  }

  async #press(raw: Uint8Array) {
    const a = this.#actions;
    if (!a) return { status: 503, body: "not started" };
    return pressed(raw, a.secret, a.ctx);
  }

  /** The `user_typing` action on the socket (https://developers.mattermost.com/integrate/reference/websocket/). */
  async startTyping(thread: string): Promise<void> {
    const { channelId, root } = parseThread(thread);
    this.#socket?.action("user_typing", { channel_id: channelId, parent_id: root ?? "" });
  }

  async #call<T>(
    call: string,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    if (!this.#client) throw new Error("mattermost gateway not started");
    try {
      return await this.#client.json<T>(call, `${this.#base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.#token}` },
        ...(body !== undefined ? { body } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      throw err instanceof PlatformCallError ? err.toSendError({ envVar: this.#o.tokenEnvVar }) : err;
    }
  }
}

export function createGateway(options: MattermostGatewayOptions): MattermostGateway {
  return new MattermostGateway(options);
}
