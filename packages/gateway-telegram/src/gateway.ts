// The telegram push-style gateway: getUpdates long-poll (poller.ts), replies in Telegram HTML,
// typing while a turn runs, approvals as inline keyboards whose presses become decisions.
import {
  type AttachmentKind,
  type AttachmentRef,
  type BackoffOptions,
  PlatformCallError,
  decisionLabel,
  encodeDecision,
  pressableDecisions,
  readSecrets,
  type DecidedNotice,
  finishDraftOf,
  type Gateway,
  type GatewayCapabilities,
  type GatewayFactory,
  type GatewayContext,
  GatewaySendError,
  type InteractionRequest,
  type OutboundFile,
  type SendOptions,
  type SendResult,
  streamOf,
  TypingRepeat,
} from "@agentsvc/adapter-kit";
import { parseDuration } from "@agentsvc/config-schema/adapter";
import { BotApi, sendFailureOf } from "./api.js";
import { telegramPoller } from "./connection.js";
import { downloadFile } from "./download.js";
import { uploadOf } from "./files.js";
import { escapeHtml, htmlToPlain, splitHtml, telegramPieces } from "./format.js";
import {
  type BotIdentity,
  type Classified,
  classifyUpdate,
  type TgMessage,
  type TgUpdate,
} from "./inbound.js";
import { DRAFT_REFRESH_MS, GROUP_EDIT_GAP_MS, TelegramStreams } from "./stream.js";
import { parseThread } from "./thread.js";

export interface TelegramGatewayOptions {
  /** Environment variable holding the bot token (from @BotFather). */
  botTokenEnvVar: string;
  /** Bot API base URL. Default https://api.telegram.org (a self-hosted Bot API server or a proxy may replace it). */
  apiBaseUrl?: string;
  /** Overrides the environment the session hands over. */
  env?: Readonly<Record<string, string | undefined>>;
  /** getUpdates long-poll timeout in seconds. Default 25. */
  pollTimeoutSeconds?: number;
  /** How long past the poll timeout a silent getUpdates is given up as dead. Default 10 000 ms. */
  pollGraceMs?: number;
  /** Backoff of the poll after failures. Default 1 s doubling to 60 s, +20% jitter. */
  backoff?: BackoffOptions;
  /** Timeout of the other API calls. Default 30 000 ms. */
  requestTimeoutMs?: number;
  /** The typing action is repeated at this period (it shows for 5 s) until the reply. Default 4 000 ms. */
  typingIntervalMs?: number;
  /** Typing stops after this long even without a reply. Default 120 000 ms. */
  typingMaxMs?: number;
  /**
   * The entry's `media` block (config-schema's `mediaPolicyOf`): the kinds and size taken in. Absent:
   * a file is refused (`disabled`) without a download, and the session answers saying so.
   */
  media?: { types: readonly AttachmentKind[]; maxBytes: number };
  /** Accepted for the common factory shape; a push-style gateway is always named `telegram`. */
  name?: string;
  /** Edits of a streamed reply in one group chat start at least this far apart. Default 3 000 ms (20 a minute). */
  groupEditGapMs?: number;
  /** A draft whose text did not change is sent again this often, so it stays shown (Telegram drops it after about 30 s). Default 20 000 ms. */
  draftRefreshMs?: number;
  /** Tries of an update that fails to be handled before it is skipped with an error log. Default 10. */
  maxUpdateAttempts?: number;
  /** ...and no sooner than this long after its first failure. Default 600 000 ms (10 minutes). */
  skipUpdateAfterMs?: number;
  /** The entry's `deafAfter` ("10m"): getUpdates works but nothing came for that long -> warn, restart the poll. */
  deafAfter?: string;
  /** The most of a Bot API answer kept. Default the kit transport's MAX_ANSWER_BYTES (32 MiB); tests lower it. */
  maxAnswerBytes?: number;
}

/** sendMessage takes 1-4096 characters of text after entities parsing. */
export const MESSAGE_LIMIT = 4096;

export class TelegramGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "telegram";
  readonly name = "telegram";
  readonly capabilities: GatewayCapabilities = {
    threads: true,
    interactiveActions: true,
    // Stryker disable next-line BooleanLiteral: nothing reads capabilities.editing (the session checks for an edit method)
    editing: true,
    streaming: true,
    typing: true,
  };
  readonly messageLimit = MESSAGE_LIMIT;
  readonly #streams: TelegramStreams = new TelegramStreams(
    {
      draft: async (thread, draftId, html, signal) => {
        const { chatId, topicId } = parseThread(thread);
        await this.#call(
          "sendMessageDraft",
          {
            chat_id: chatId,
            ...(topicId ? { message_thread_id: topicId } : {}),
            draft_id: draftId,
            text: html,
            parse_mode: "HTML",
          },
          signal,
        );
      },
      send: (thread, html, options, signal) => this.#send(thread, html, options, signal),
      edit: (thread, messageId, html, signal) => this.#edit(thread, messageId, html, signal),
    },
    () => this.#options.groupEditGapMs ?? GROUP_EDIT_GAP_MS,
    () => this.#options.draftRefreshMs ?? DRAFT_REFRESH_MS,
  );
  /** Private chats: a native draft; groups: send then edit (see stream.ts). The final message stops typing first. */
  readonly stream = streamOf(this.#streams);
  readonly finishDraft = finishDraftOf(this.#streams, (thread) => this.#stopTyping(thread));
  #ctx: GatewayContext | undefined;
  #api: BotApi | undefined;
  // Stryker disable next-line BooleanLiteral: start sets it false before anything reads it (each reader checks #ctx first)
  #stopped = false;
  /** Typing repeated per chat until the reply (or typingMaxMs). */
  readonly #typing: TypingRepeat;

  readonly #options: TelegramGatewayOptions;

  constructor(options: TelegramGatewayOptions) {
    this.#options = options;
    this.#typing = new TypingRepeat({
      intervalMs: options.typingIntervalMs ?? 4_000,
      maxMs: options.typingMaxMs ?? 120_000,
    });
  }

  async start(ctx: GatewayContext): Promise<void> {
    this.#ctx = ctx;
    this.#stopped = false;
    const { token } = readSecrets(
      ctx,
      { token: this.#options.botTokenEnvVar },
      {
        ...(this.#options.env ? { env: this.#options.env } : {}),
        gateway: "telegram",
        describe: { token: "the bot token from @BotFather" },
      },
    );
    this.#api = new BotApi(
      this.#options.apiBaseUrl ?? "https://api.telegram.org",
      token,
      this.#options.requestTimeoutMs ?? 30_000,
      this.#options.maxAnswerBytes,
    );
    const deafAfterMs = this.#options.deafAfter ? parseDuration(this.#options.deafAfter) : undefined;
    const poll = telegramPoller(
      this.#api,
      ctx,
      {
        envVar: this.#options.botTokenEnvVar,
        pollTimeoutSeconds: this.#options.pollTimeoutSeconds ?? 25,
        graceMs: this.#options.pollGraceMs ?? 10_000,
        // Stryker disable next-line ObjectLiteral: Backoff reads an empty object with these same defaults
        backoff: this.#options.backoff ?? { baseMs: 1_000, maxMs: 60_000 },
        maxUpdateAttempts: this.#options.maxUpdateAttempts ?? 10,
        skipUpdateAfterMs: this.#options.skipUpdateAfterMs ?? 600_000,
        // Stryker disable next-line ConditionalExpression: telegramPoller reads an undefined deafAfterMs as absent
        ...(deafAfterMs !== undefined ? { deafAfterMs } : {}),
      },
      (update, bot, signal) => this.#handle(update, bot, signal),
    );
    ctx.scheduler.schedule("poll", 0, (signal) => (this.#stopped ? null : poll(signal)));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const ctx = this.#ctx;
    if (!ctx) return;
    ctx.scheduler.cancel("poll");
    this.#streams.close();
    this.#typing.stopAll(ctx.scheduler);
  }

  /**
   * The reply's Markdown (no `format`: the session hands it over as written) cut on its tree into
   * Telegram HTML pieces of at most 4096 visible characters, the limit sendMessage counts after
   * HTML parsing. Each piece is rendered on its own, so it parses as sent.
   */
  chunk(markdown: string): string[] {
    return telegramPieces(markdown, MESSAGE_LIMIT);
  }

  send(thread: string, text: string, options: SendOptions): Promise<SendResult> {
    return this.#send(thread, text, options);
  }

  /** A send; `signal` aborts it (a preview the session gave up on). */
  async #send(thread: string, text: string, options: SendOptions, signal?: AbortSignal): Promise<SendResult> {
    this.#stopTyping(thread);
    const message = await this.#sendHtml(thread, text, options, undefined, signal);
    return { messageId: String(message.message_id) };
  }

  /** One file of a reply as a photo or a document (files.ts); a retry uploads it again. */
  async sendFile(thread: string, file: OutboundFile, options: SendOptions): Promise<SendResult> {
    this.#stopTyping(thread);
    const { method, form } = await uploadOf(thread, file, options);
    const message = await this.#call<TgMessage>(method, form);
    return { messageId: String(message.message_id) };
  }

  edit(thread: string, messageId: string, text: string): Promise<void> {
    return this.#edit(thread, messageId, text);
  }

  async #edit(thread: string, messageId: string, html: string, signal?: AbortSignal): Promise<void> {
    const { chatId } = parseThread(thread);
    const base = { chat_id: chatId, message_id: Number(messageId) };
    try {
      await this.#call("editMessageText", { ...base, text: html, parse_mode: "HTML" }, signal).catch(
        ignoreNotModified,
      );
    } catch (err) {
      // As for a send: markup Telegram refuses must not cost the edit (the final text of a stream).
      if (!(err instanceof GatewaySendError && /can't parse entities/i.test(err.message))) throw err;
      // Stryker disable next-line OptionalChaining: only a call start made possible fails here, and start set #ctx
      this.#ctx?.logger.warn({ err }, "HTML refused; editing the message to plain text");
      await this.#call("editMessageText", { ...base, text: htmlToPlain(html) }, signal).catch(
        ignoreNotModified,
      );
    }
  }

  /** How many threads' typing indicator is being repeated (diagnostics; entries end at the reply or expiry). */
  get typingThreadCount(): number {
    return this.#typing.size;
  }

  async startTyping(thread: string): Promise<void> {
    const ctx = this.#ctx;
    if (!ctx || this.#stopped) return;
    const { chatId, topicId } = parseThread(thread);
    await this.#typing.start(ctx, thread, (signal) =>
      // Stryker disable next-line OptionalChaining: #api is unset only after a start that threw (no token), and TypingRepeat catches a failed beat either way
      this.#api?.call(
        "sendChatAction",
        { chat_id: chatId, action: "typing", ...(topicId ? { message_thread_id: topicId } : {}) },
        signal,
      ),
    );
  }

  async requestDecision(request: InteractionRequest, options: SendOptions): Promise<SendResult> {
    this.#stopTyping(request.thread);
    const buttons = pressableDecisions(request.allowedDecisions).map((d) => ({
      text: decisionLabel(d),
      callback_data: encodeDecision(request.requestId, d),
    }));
    const message = await this.#sendHtml(
      request.thread,
      // One message: the first piece (cut by visible characters, never inside an escape).
      splitHtml(escapeHtml(request.prompt), MESSAGE_LIMIT)[0] ?? "",
      options,
      { inline_keyboard: [buttons] },
    );
    return { messageId: String(message.message_id) };
  }

  /** Replaces the buttons with one that states the outcome (pressing it again is answered, nothing more). */
  async onDecided(notice: DecidedNotice): Promise<void> {
    if (!notice.requestMessageId) return;
    const { chatId } = parseThread(notice.thread);
    const outcome =
      notice.decision === "approve"
        ? "✅ Approved"
        : notice.decision === "reject"
          ? "❌ Rejected"
          : "✏️ Edited";
    await this.#call("editMessageReplyMarkup", {
      chat_id: chatId,
      message_id: Number(notice.requestMessageId),
      reply_markup: { inline_keyboard: [[{ text: outcome, callback_data: `x:${notice.requestId}` }]] },
    }).catch(ignoreNotModified);
  }

  async #handle(update: TgUpdate, bot: BotIdentity, signal: AbortSignal): Promise<void> {
    const ctx = this.#ctx;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral,CallExpression: PollLoop checks signal.aborted just before each update and stop's cancel aborts it; the guard narrows #ctx for the compiler
    if (!ctx || this.#stopped || signal.aborted) throw new Error("telegram gateway stopped");
    const got: Classified = classifyUpdate(update, bot);
    if ("message" in got) {
      // Files are stored (or refused) before deliver, whose inbox record keeps the refs; a failed
      // download throws and the update is tried again (the poller's bound), fetching nothing twice.
      const attachments: AttachmentRef[] = [];
      for (const file of got.files ?? [])
        attachments.push(
          await downloadFile(this.#api as BotApi, ctx, file, this.#options.media, this.#apiHost()),
        );
      await ctx.deliver(attachments.length > 0 ? { ...got.message, attachments } : got.message);
    } else if ("press" in got) {
      await this.#pressed(ctx, got.press);
    } else {
      ctx.logger.debug({ updateId: update.update_id, reason: got.ignore }, "update ignored");
      if (got.answer) await this.#answer(ctx, got.answer.queryId, got.answer.text);
    }
  }

  /** A button press: decide, then always answer the callback query so the client stops its spinner. */
  async #pressed(
    ctx: GatewayContext,
    press: Extract<Classified, { press: unknown }>["press"],
  ): Promise<void> {
    let answer = "This request is already closed.";
    try {
      const result = await ctx.decide(press.requestId, { decision: press.decision }, press.by);
      answer = result.ok ? (result.decision === "approve" ? "Approved" : "Rejected") : result.message;
    } finally {
      await this.#answer(ctx, press.queryId, answer);
    }
  }

  async #answer(ctx: GatewayContext, queryId: string, text: string): Promise<void> {
    // Stryker disable next-line OptionalChaining: presses come only from the poll start made after setting #api
    await this.#api
      ?.call("answerCallbackQuery", { callback_query_id: queryId, text: text.slice(0, 200) })
      .catch((err: unknown) => ctx.logger.warn({ err }, "answerCallbackQuery failed"));
  }

  async #sendHtml(
    thread: string,
    html: string,
    options: SendOptions,
    keyboard?: unknown,
    signal?: AbortSignal,
  ): Promise<TgMessage> {
    const { chatId, topicId } = parseThread(thread);
    const replyTo = options.meta?.messageId;
    const base = {
      chat_id: chatId,
      ...(topicId ? { message_thread_id: topicId } : {}),
      ...(typeof replyTo === "number"
        ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }
        : {}),
      ...(keyboard ? { reply_markup: keyboard } : {}),
    };
    try {
      return await this.#call<TgMessage>("sendMessage", { ...base, text: html, parse_mode: "HTML" }, signal);
    } catch (err) {
      // Markup the platform still refuses must not cost the reply: send the visible text plainly.
      if (!(err instanceof GatewaySendError && /can't parse entities/i.test(err.message))) throw err;
      // Stryker disable next-line OptionalChaining: only a call start made possible fails here, and start set #ctx
      this.#ctx?.logger.warn({ err }, "HTML refused; sending the piece as plain text");
      return this.#call<TgMessage>("sendMessage", { ...base, text: htmlToPlain(html) }, signal);
    }
  }

  /** A Bot API call whose failure tells the outbox what to do next. */
  async #call<T>(
    method: string,
    params: Record<string, unknown> | FormData,
    signal?: AbortSignal,
  ): Promise<T> {
    if (!this.#api) throw new GatewaySendError("telegram gateway not started");
    try {
      return await this.#api.call<T>(method, params, signal);
    } catch (err) {
      if (!(err instanceof PlatformCallError)) throw err;
      throw sendFailureOf(err, this.#options.botTokenEnvVar);
    }
  }

  #apiHost(): string {
    return new URL(this.#options.apiBaseUrl ?? "https://api.telegram.org").hostname;
  }

  #stopTyping(thread: string): void {
    this.#typing.stop(this.#ctx?.scheduler, thread);
  }
}

function ignoreNotModified(err: unknown): void {
  if (err instanceof Error && /message is not modified/i.test(err.message)) return;
  throw err;
}

/** The entry's keys (`botTokenEnvVar`, `apiBaseUrl`) plus the test and embedding options above. */
export const createGateway: GatewayFactory<TelegramGatewayOptions> = (options) =>
  new TelegramGateway(options);
