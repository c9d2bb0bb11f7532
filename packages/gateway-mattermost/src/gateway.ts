// The mattermost gateway: WebSocket events in (socket.ts, inbound.ts), REST posts out (POST /api/v4/posts,
// https://api.mattermost.com/#tag/posts/operation/CreatePost): `root_id` for a thread, the outbox key as
// `pending_post_id` (a retried piece is one post), Markdown as written (Mattermost renders it), errors
// as the AppError body (`id`, `message`, `status_code`).
import {
  type BackoffOptions,
  chunkText,
  type FailureFacts,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type InteractionRequest,
  PlatformApi,
  readSecrets,
  type SendOptions,
  type SendResult,
  splitThread,
  type WebhookRoute,
} from "@agentsvc/adapter-kit";
import { buttonsFor, pressed } from "./buttons.js";
import { quietChannelMentions } from "./channel-mentions.js";
import { type Bot, readPosted } from "./inbound.js";
import type { MattermostEntry } from "./schema.js";
import { mattermostSocket } from "./socket.js";

/** A post's message holds at most 16 383 characters (the server's default MaxPostSize). */
export const MESSAGE_LIMIT = 16_383;

export type MattermostGatewayOptions = MattermostEntry & {
  name: string;
  env: Readonly<Record<string, string | undefined>>;
  backoff?: BackoffOptions;
  requestTimeoutMs?: number;
};

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
  #api: PlatformApi | undefined;
  #socket: Awaited<ReturnType<typeof mattermostSocket>> | undefined;
  /** The bot's own id and username (GET /users/me): its posts are ignored, its mentions gate channels. */
  #bot: Bot | undefined;
  #actions: { url: string; secret: string; ctx: GatewayContext } | undefined;

  constructor(options: MattermostGatewayOptions) {
    this.#o = options;
    this.name = options.name;
    const buttons = options.actionSecretEnvVar !== undefined;
    this.capabilities = { threads: true, interactiveActions: buttons, typing: true };
    this.webhooks = buttons
      ? [{ method: "POST", handle: (r) => pressed(r.rawBody, this.#actions) }]
      : undefined;
  }

  async start(ctx: GatewayContext): Promise<void> {
    const o = this.#o;
    const { token, secret } = readSecrets(
      ctx,
      { token: o.tokenEnvVar, secret: o.actionSecretEnvVar },
      {
        env: o.env,
        gateway: "mattermost",
        describe: { token: "the bot account's access token", secret: "the secret signing approval buttons" },
      },
    );
    if (o.actionSecretEnvVar) {
      if (!ctx.publicBaseUrl)
        throw new Error("mattermost: actionSecretEnvVar needs the server's publicBaseUrl (buttons call it)");
      this.#actions = { url: `${ctx.publicBaseUrl.replace(/\/+$/, "")}/webhooks/${this.type}`, secret, ctx };
    }
    const baseUrl = `${o.serverUrl.replace(/\/+$/, "")}/api/v4`;
    const envVar = o.tokenEnvVar;
    const timeoutMs = o.requestTimeoutMs ?? 15_000;
    const api = new PlatformApi({ platform: "mattermost", baseUrl, token, envVar, timeoutMs, bodyFailure });
    this.#api = api;
    this.#socket = await mattermostSocket(ctx, {
      serverUrl: o.serverUrl,
      auth: { token, envVar },
      ...(o.backoff ? { backoff: o.backoff } : {}),
      identify: async (signal) => {
        this.#bot ??= await api.send<Bot>("users/me", "GET", "/users/me", { signal });
      },
      onEvent: async (event, data) => {
        if (event !== "posted" || !this.#bot) return;
        const reading = readPosted(data, this.#bot);
        if (reading.kind === "message") await ctx.deliver(reading.inbound);
        else ctx.logger.debug({ reason: reading.reason }, "mattermost post ignored");
      },
    });
  }

  async stop(): Promise<void> {
    await this.#socket?.stop();
    this.#socket = undefined;
  }

  /**
   * Pieces as posted: each cut first and then quieted (a cut can end a code span, so the text after it
   * is read as words again); one the joiners pushed over the limit is cut and quieted once more.
   */
  chunk(markdown: string): string[] {
    return chunkText(markdown, MESSAGE_LIMIT).flatMap((piece) => {
      const quiet = this.#quiet(piece);
      return quiet.length <= MESSAGE_LIMIT
        ? [quiet]
        : chunkText(quiet, MESSAGE_LIMIT).map((p) => this.#quiet(p));
    });
  }

  send(thread: string, text: string, options: SendOptions): Promise<SendResult> {
    return this.#post(thread, { message: this.#quiet(text) }, options);
  }

  /** An approval as a post with buttons (when `actionSecretEnvVar` is set); the server reads the card's text too. */
  requestDecision(request: InteractionRequest, options: SendOptions): Promise<SendResult> {
    const a = this.#actions;
    if (!a) throw new Error("mattermost buttons are not configured");
    const card = buttonsFor({ ...request, prompt: this.#quiet(request.prompt) }, a.url, a.secret);
    return this.#post(request.thread, { message: "", props: card }, options);
  }

  /** What the bot posts carries no channel-wide mention unless the entry allows them (channel-mentions.ts). */
  #quiet(text: string): string {
    return this.#o.allowChannelMentions ? text : quietChannelMentions(text);
  }

  /** One post, in the thread's root when it has one, once per outbox key (`pending_post_id`). */
  async #post(thread: string, fields: Record<string, unknown>, options: SendOptions): Promise<SendResult> {
    if (!this.#api) throw new Error("mattermost gateway not started");
    const { container, root } = splitThread(thread);
    const post = await this.#api.send<{ id: string }>("posts", "POST", "/posts", {
      body: {
        channel_id: container,
        ...fields,
        ...(root ? { root_id: root } : {}),
        pending_post_id: options.idempotencyKey,
      },
    });
    return { messageId: post.id };
  }

  /** The `user_typing` action on the socket (https://developers.mattermost.com/integrate/reference/websocket/). */
  async startTyping(thread: string): Promise<void> {
    const { container, root } = splitThread(thread);
    this.#socket?.action("user_typing", { channel_id: container, parent_id: root ?? "" });
  }
}

export const createGateway = (options: MattermostGatewayOptions) => new MattermostGateway(options);
