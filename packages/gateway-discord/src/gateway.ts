// The discord push-style gateway: the Gateway websocket (connection.ts) for inbound, REST (api.ts)
// for replies, typing and approvals (message-component buttons answered through interaction callbacks).
import type { AttachmentRef, DecisionKind } from "@agentsvc/adapter-kit";
import {
  type BackoffOptions,
  type DecidedNotice,
  decisionLabel,
  decodeDecision,
  encodeDecision,
  fileNote,
  finishDraftOf,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type GatewayFactory,
  GatewaySendError,
  type InteractionRequest,
  type OutboundFile,
  pressableDecisions,
  readSecrets,
  type SendOptions,
  type SendResult,
  streamOf,
  TypingRepeat,
} from "@agentsvc/adapter-kit";
import { parseDuration } from "@agentsvc/config-schema/adapter";
import { DiscordRest } from "./api.js";
import { GatewaySocket } from "./connection.js";
import { downloadFile, type MediaOptions } from "./download.js";
import { attachmentForm } from "./files.js";
import { discordPieces } from "./format.js";
import { type DiscordMessage, isThreadChannel, readMessage } from "./inbound.js";
import { nonceParams } from "./nonce.js";
import { DiscordStreams } from "./stream.js";
import { botRoleIn, ThreadMemory } from "./thread.js";

export interface DiscordGatewayOptions {
  /** Environment variable holding the bot token. */
  botTokenEnvVar: string;
  /** Gateway intents. Default 37377 (guilds, guild messages, direct messages, message content). */
  intents?: number;
  /** REST base URL. Default https://discord.com/api/v10. */
  apiBaseUrl?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** No gateway frame for this long: reconnect. Default 30 000 ms. */
  watchdogMs?: number;
  /** Reconnect backoff. Default 1 s doubling to 60 s, +20% jitter. */
  backoff?: BackoffOptions;
  /** Random source for the first heartbeat's jitter and the invalid-session wait. Default Math.random. */
  jitter?: () => number;
  /** Default [1 000, 5 000] ms. */
  invalidSessionDelayMs?: [number, number];
  /** Failed resumes in a row before a fresh Identify. Default 3. */
  maxResumeFailures?: number;
  /** The entry's `deafAfter` ("10m"): heartbeats ACKed but no event for that long -> resume, with a warning. */
  deafAfter?: string;
  /**
   * The entry's `media` block: the kinds and size of attachments taken in. Absent: an attachment is
   * refused (`disabled`) without a download, and the session answers saying so.
   */
  media?: MediaOptions;
  /** REST timeout. Default 30 000 ms (interaction callbacks always use 2 500 ms: Discord allows 3 s). */
  requestTimeoutMs?: number;
  /** Typing is posted again at this period until the reply (Discord shows it for 10 s). Default 8 000 ms. */
  typingIntervalMs?: number;
  /** Typing stops after this long even without a reply. Default 120 000 ms. */
  typingMaxMs?: number;
  name?: string;
}

export const MESSAGE_LIMIT = 2000;
export const DEFAULT_WATCHDOG_MS = 30_000;
const CALLBACK_TIMEOUT_MS = 2_500;
const NO_PINGS = { parse: [] as string[] };

export class DiscordGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "discord";
  readonly name = "discord";
  readonly capabilities: GatewayCapabilities = {
    threads: true,
    interactiveActions: true,
    editing: true,
    streaming: true,
    typing: true,
  };
  readonly messageLimit = MESSAGE_LIMIT;
  #ctx: GatewayContext | undefined;
  #rest: DiscordRest | undefined;
  #callbacks: DiscordRest | undefined;
  #socket: GatewaySocket | undefined;
  #botUserId: string | undefined;
  #memory: ThreadMemory | undefined;
  #intentHintLogged = false;
  // Stryker disable next-line BooleanLiteral: start() sets it; before start there is no context, which every use checks first
  #stopped = false;
  /** Typing repeated per channel until the reply (or typingMaxMs). */
  readonly #typing: TypingRepeat;
  readonly #streams = new DiscordStreams(
    () => this.#api(),
    (thread, text, options, signal) => this.#post(thread, text, options, signal),
  );
  /** Send then edit: see stream.ts. The final message stops the typing indicator first. */
  readonly stream = streamOf(this.#streams);
  readonly finishDraft = finishDraftOf(this.#streams, (thread) => this.#stopTyping(thread));

  readonly #options: DiscordGatewayOptions;

  constructor(options: DiscordGatewayOptions) {
    this.#options = options;
    this.#typing = new TypingRepeat({
      intervalMs: options.typingIntervalMs ?? 8_000,
      maxMs: options.typingMaxMs ?? 120_000,
    });
  }

  /** True after a fatal close code (bad token, disallowed intents, ...): the gateway will not reconnect. */
  get halted(): boolean {
    return this.#socket?.halted ?? false;
  }

  async start(ctx: GatewayContext): Promise<void> {
    this.#ctx = ctx;
    this.#stopped = false;
    this.#memory = new ThreadMemory(ctx.state);
    const envVar = this.#options.botTokenEnvVar;
    const { token } = readSecrets(
      ctx,
      { token: envVar },
      {
        ...(this.#options.env ? { env: this.#options.env } : {}),
        gateway: "discord",
        describe: { token: "the bot token (Developer Portal, Bot page, Reset Token)" },
      },
    );
    const base = this.#options.apiBaseUrl ?? "https://discord.com/api/v10";
    const rest = new DiscordRest(base, token, this.#options.requestTimeoutMs ?? 30_000, envVar);
    this.#rest = rest;
    this.#callbacks = new DiscordRest(base, token, CALLBACK_TIMEOUT_MS, envVar);
    this.#socket = new GatewaySocket(ctx, {
      token,
      tokenEnvVar: envVar,
      intents: this.#options.intents ?? 37377,
      gatewayUrl: async (signal) =>
        String((await rest.call<{ url: string }>("GET", "/gateway/bot", undefined, signal)).url),
      onDispatch: (t, d) => this.#dispatch(t, d),
      onReady: (user) => {
        this.#botUserId = user.id;
      },
      watchdogMs: this.#options.watchdogMs ?? DEFAULT_WATCHDOG_MS,
      // Stryker disable next-line ObjectLiteral,LogicalOperator: the kit's Backoff defaults are the same (1 s doubling to 60 s)
      backoff: this.#options.backoff ?? { baseMs: 1_000, maxMs: 60_000 },
      jitter: this.#options.jitter ?? Math.random,
      invalidSessionDelayMs: this.#options.invalidSessionDelayMs ?? [1_000, 5_000],
      maxResumeFailures: this.#options.maxResumeFailures ?? 3,
      ...(this.#options.deafAfter ? { deafAfterMs: parseDuration(this.#options.deafAfter) } : {}),
    });
    // After a restart the session resumes without READY, so learn who the bot is over REST.
    this.#botUserId = await rest
      .call<{ id: string }>("GET", "/users/@me")
      .then((u) => u.id)
      .catch(() => undefined);
    await this.#socket.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#socket?.stop();
    this.#typing.stopAll(this.#ctx?.scheduler);
  }

  /**
   * The reply's Markdown (no `format`: the session hands it over as written) cut on its tree into
   * Discord markdown pieces of at most 2 000 characters, each rendered on its own.
   */
  chunk(markdown: string): string[] {
    return discordPieces(markdown, MESSAGE_LIMIT);
  }

  send(thread: string, text: string, options: SendOptions): Promise<SendResult> {
    return this.#post(thread, text, options);
  }

  /** A send; `signal` aborts it (a preview post the session gave up on). */
  async #post(thread: string, text: string, options: SendOptions, signal?: AbortSignal): Promise<SendResult> {
    this.#stopTyping(thread);
    const replyTo = options.meta?.messageId;
    const msg = await this.#api().call<{ id: string }>(
      "POST",
      `/channels/${thread}/messages`,
      {
        content: text,
        allowed_mentions: NO_PINGS,
        ...nonceParams(options.idempotencyKey),
        ...(typeof replyTo === "string"
          ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
          : {}),
      },
      signal,
    );
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral,OptionalChaining: a second line only: Discord sends the bot its own message back, which marks the thread (#message), and memory is read for thread channels only
    if (options.meta?.discordThread === true) await this.#memory?.markAnswered(thread);
    return { messageId: msg.id };
  }

  /**
   * One file of a reply as an attachment (files.ts). A file over the channel's upload limit (413)
   * becomes a text note naming it, with the service's link when there is one, instead of a dead piece.
   */
  async sendFile(thread: string, file: OutboundFile, options: SendOptions): Promise<SendResult> {
    this.#stopTyping(thread);
    try {
      const form = await attachmentForm(file, options, NO_PINGS);
      const msg = await this.#api().call<{ id: string }>("POST", `/channels/${thread}/messages`, form);
      return { messageId: msg.id };
    } catch (err) {
      if (!(err instanceof GatewaySendError && err.status === 413)) throw err;
      // Stryker disable next-line OptionalChaining: #api() threw "not started" before the upload when there is no context
      this.#ctx?.logger.warn(
        { file: file.name, size: file.size },
        "file over Discord's upload limit; sent as a note",
      );
      return this.#post(thread, fileNote(file, file.url), options);
    }
  }

  async edit(thread: string, messageId: string, text: string): Promise<void> {
    await this.#api().call("PATCH", `/channels/${thread}/messages/${messageId}`, { content: text });
  }

  /**
   * Discord shows typing for 10 s or until the bot posts
   * (https://discord.com/developers/docs/resources/channel#trigger-typing-indicator), so it is
   * posted again every `typingIntervalMs` until the reply (or `typingMaxMs`).
   */
  /** How many threads' typing indicator is being repeated (diagnostics; entries end at the reply or expiry). */
  get typingThreadCount(): number {
    return this.#typing.size;
  }

  async startTyping(thread: string): Promise<void> {
    const ctx = this.#ctx;
    if (!ctx || this.#stopped) return;
    await this.#typing.start(ctx, thread, (signal) =>
      this.#api().call("POST", `/channels/${thread}/typing`, undefined, signal),
    );
  }

  async requestDecision(request: InteractionRequest, options: SendOptions): Promise<SendResult> {
    this.#stopTyping(request.thread);
    // custom_id holds at most 100 characters; the kit's payload is far shorter.
    const buttons = pressableDecisions(request.allowedDecisions).map((d) => ({
      type: 2,
      // Stryker disable next-line ConditionalExpression: pressableDecisions yields only approve and reject, so the grey fallback is never reached
      style: d === "approve" ? 3 : d === "reject" ? 4 : 2,
      label: decisionLabel(d),
      custom_id: encodeDecision(request.requestId, d),
    }));
    const msg = await this.#api().call<{ id: string }>("POST", `/channels/${request.thread}/messages`, {
      content: fit(request.prompt, MESSAGE_LIMIT),
      allowed_mentions: NO_PINGS,
      ...nonceParams(options.idempotencyKey),
      components: [{ type: 1, components: buttons }],
    });
    return { messageId: msg.id };
  }

  /** Replaces the buttons with the outcome (also after an expiry or a decision made elsewhere). */
  async onDecided(notice: DecidedNotice): Promise<void> {
    if (!notice.requestMessageId) return;
    const view = await this.#ctx?.interaction(notice.requestId);
    await this.#api().call("PATCH", `/channels/${notice.thread}/messages/${notice.requestMessageId}`, {
      content: outcomeText(view?.prompt ?? "Approval request", notice.decision, notice.decidedBy),
      components: [],
    });
  }

  async #dispatch(t: string, d: unknown): Promise<void> {
    const ctx = this.#ctx;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: a second line only: the socket exists after start set the context and drops every dispatch once stop() stopped it
    if (!ctx || this.#stopped) throw new Error("discord gateway stopped");
    switch (t) {
      case "MESSAGE_CREATE":
        return this.#message(ctx, d as DiscordMessage);
      case "INTERACTION_CREATE":
        return this.#interaction(ctx, d as Interaction);
      case "GUILD_CREATE": {
        const guild = d as { id: string; roles?: { id: string; tags?: { bot_id?: string } }[] };
        const role = botRoleIn(guild.roles, this.#botUserId);
        // Stryker disable next-line ConditionalExpression,OptionalChaining: GUILD_CREATE lists every role of the guild, so one without the bot's means it has none (forgetting a stored one changes nothing); memory is set at start, before the socket
        if (role) await this.#memory?.setBotRole(guild.id, role);
        return;
      }
      case "GUILD_ROLE_CREATE":
      case "GUILD_ROLE_UPDATE": {
        const e = d as { guild_id: string; role: { id: string; tags?: { bot_id?: string } } };
        const role = botRoleIn([e.role], this.#botUserId);
        // Stryker disable next-line OptionalChaining: memory is set at start, before the socket exists
        if (role) await this.#memory?.setBotRole(e.guild_id, role);
        return;
      }
      default:
        ctx.logger.debug({ t, reason: `${t}: not a new message` }, "ignored");
    }
  }

  async #message(ctx: GatewayContext, m: DiscordMessage): Promise<void> {
    const memory = this.#memory as ThreadMemory;
    const own = this.#botUserId !== undefined && m.author.id === this.#botUserId;
    // Discord sends the bot its own messages too: one in a thread marks the thread answered.
    if (own && isThreadChannel(m)) await memory.markAnswered(m.channel_id);
    const botRoleId = m.guild_id ? await memory.botRole(m.guild_id) : undefined;
    const reading = readMessage(m, {
      botUserId: this.#botUserId,
      ...(botRoleId ? { botRoleId } : {}),
      answeredThread: isThreadChannel(m) && (await memory.answered(m.channel_id)),
    });
    if (reading.kind === "deliver") {
      // Attachments are stored (or refused) before deliver, whose inbox record keeps the refs; the
      // sequence is heartbeated (acknowledged) only after, and a stored file is not fetched twice.
      const attachments: AttachmentRef[] = [];
      const base = this.#options.apiBaseUrl ?? "https://discord.com/api/v10";
      for (const file of reading.files ?? [])
        attachments.push(await downloadFile(ctx, file, this.#options.media, base));
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the session records an empty attachment list as none (record-inbound)
      await ctx.deliver(attachments.length > 0 ? { ...reading.inbound, attachments } : reading.inbound);
      return;
    }
    ctx.logger.debug({ messageId: m.id, channelId: m.channel_id, reason: reading.reason }, "ignored");
    if (reading.kind === "empty") this.#intentHint(ctx);
  }

  /** A button press: decide, then answer the interaction within Discord's 3 s. */
  async #interaction(ctx: GatewayContext, i: Interaction): Promise<void> {
    // Stryker disable next-line OptionalChaining,StringLiteral: a component interaction (type 3) always carries data.custom_id (interaction object, message component data)
    const parsed = i.type === 3 ? parseCustomId(i.data?.custom_id ?? "") : undefined;
    // Stryker disable next-line OptionalChaining: an interaction carries member in a guild and user in a DM, never neither (interaction object)
    const user = i.member?.user?.id ?? i.user?.id;
    if (!parsed || !user) {
      const reason = i.type !== 3 ? `interaction type ${i.type}` : "not an approval button of this gateway";
      ctx.logger.debug({ interactionId: i.id, reason }, "ignored");
      return;
    }
    const result = await ctx.decide(parsed.requestId, { decision: parsed.decision }, user);
    const body = result.ok
      ? {
          type: 7,
          // Stryker disable next-line OptionalChaining,StringLiteral: a component interaction always carries the message it is attached to, and the bot is always sent its own message's content
          data: { content: outcomeText(i.message?.content ?? "", result.decision, user), components: [] },
        }
      : { type: 4, data: { content: `Not recorded: ${result.message}`, flags: 64 } };
    // Stryker disable next-line OptionalChaining: the callback client is set at start, before the socket can dispatch an interaction
    await this.#callbacks
      ?.call("POST", `/interactions/${i.id}/${i.token}/callback`, body)
      .catch((err: unknown) => ctx.logger.warn({ err }, "interaction callback failed"));
  }

  #intentHint(ctx: GatewayContext): void {
    if (this.#intentHintLogged) return;
    this.#intentHintLogged = true;
    ctx.logger.warn(
      "a message addressed to the bot arrived with empty content and no attachment: enable the Message Content Intent (Developer Portal, Bot page) and keep it in `intents`",
    );
  }

  #stopTyping(thread: string): void {
    this.#typing.stop(this.#ctx?.scheduler, thread);
  }

  #api(): DiscordRest {
    if (!this.#rest) throw new Error("discord gateway not started");
    return this.#rest;
  }
}

interface Interaction {
  id: string;
  token: string;
  type: number;
  data?: { custom_id?: string };
  member?: { user?: { id: string } };
  user?: { id: string };
  message?: { id: string; content?: string };
}

function outcomeText(prompt: string, decision: string, by: string): string {
  const who = /^\d+$/.test(by) ? ` by <@${by}>` : "";
  const line = `${decision === "approve" ? "✅ Approved" : "❌ Rejected"}${who}`;
  return `${fit(prompt, MESSAGE_LIMIT - line.length - 2)}\n\n${line}`;
}

/**
 * Text cut to Discord's limit, so the message is posted at all (an approval prompt Discord refused
 * would never show its buttons): ends in "…" when cut, never between the halves of a surrogate pair.
 */
function fit(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let cut = text.slice(0, limit - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** The kit's payload; buttons posted before it (`agentsvc:approve:<id>`) still decide. */
function parseCustomId(id: string): { decision: DecisionKind; requestId: string } | undefined {
  const legacy = /^agentsvc:(approve|reject):(.+)$/.exec(id);
  return (
    decodeDecision(id) ??
    (legacy ? { decision: legacy[1] as DecisionKind, requestId: legacy[2] as string } : undefined)
  );
}

export const createGateway: GatewayFactory<DiscordGatewayOptions> = (options) => new DiscordGateway(options);
