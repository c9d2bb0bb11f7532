// The slack push-style gateway: Socket Mode only (connection.ts), DMs, mentions and follow-ups in
// the bot's threads in (inbound.ts), replies in the thread, approvals as Block Kit buttons whose
// presses become decisions.
import {
  type AttachmentRef,
  type BackoffOptions,
  type DecidedNotice,
  decisionLabel,
  decodeDecision,
  encodeDecision,
  finishDraftOf,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type GatewayFactory,
  type InteractionRequest,
  type OutboundFile,
  isGatewaySendError,
  pressableDecisions,
  readSecrets,
  type SendOptions,
  type SendResult,
  streamOf,
} from "@agentsvc/adapter-kit";
import { parseDuration } from "@agentsvc/config-schema/adapter";
import { AnsweredThreads } from "./answered-threads.js";
import { postUpload, SlackWebApi, type Token } from "./api.js";
import { type Envelope, SocketMode } from "./connection.js";
import { downloadFile, type MediaOptions } from "./download.js";
import { markdownToMrkdwn, slackPieces } from "./format.js";
import { type BotIdentity, readEvent, readPresses } from "./inbound.js";
import { SlackStreams } from "./stream.js";
import { parseThread } from "./thread.js";

export interface SlackGatewayOptions {
  /** Environment variable holding the bot token (`xoxb-...`). */
  botTokenEnvVar: string;
  /** Environment variable holding the app-level token (`xapp-...`, scope `connections:write`). */
  appTokenEnvVar: string;
  /** Web API base URL. Default https://slack.com/api. */
  apiBaseUrl?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** A connection silent (no frame, no ping, no pong) this long is replaced. Default 30 000 ms. */
  watchdogMs?: number;
  /** Ping period of the watchdog. Default a third of `watchdogMs`. */
  pingIntervalMs?: number;
  /** A new connection must say hello within this. Default 10 000 ms. */
  helloTimeoutMs?: number;
  /** Reconnect backoff. Default 1 s doubling to 60 s, +20% jitter. */
  backoff?: BackoffOptions;
  /** Web API call timeout. Default 30 000 ms. */
  requestTimeoutMs?: number;
  /** The entry's `deafAfter` ("10m"): a connection up that brought no event for that long is replaced, with a warning. */
  deafAfter?: string;
  /**
   * The entry's `media` block: the kinds and size of shared files taken in. Absent: a file is
   * refused (`disabled`) without a download, and the session answers saying so.
   */
  media?: MediaOptions;
  name?: string;
}

/** chat.postMessage truncates text past 40 000 characters; 4 000 keeps a reply readable (https://api.slack.com/methods/chat.postMessage#truncating). */
export const MESSAGE_LIMIT = 4000;
/** A section block's text holds at most 3 000 characters. */
const SECTION_LIMIT = 3000;

export class SlackGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "slack";
  readonly name = "slack";
  readonly capabilities: GatewayCapabilities = {
    threads: true,
    interactiveActions: true,
    editing: true,
    streaming: true,
  };
  readonly #streams = new SlackStreams({
    call: (method, params, signal) => this.#call(method, params, signal),
    send: (thread, piece, signal) => this.#post(thread, markdownToMrkdwn(piece), signal),
    answered: (thread) => this.#rememberAnswered(thread),
  });
  /** A native stream in a channel thread; post then update elsewhere (see stream.ts). */
  readonly stream = streamOf(this.#streams);
  readonly finishDraft = finishDraftOf(this.#streams);
  readonly messageLimit = MESSAGE_LIMIT;
  readonly #options: SlackGatewayOptions;
  #ctx: GatewayContext | undefined;
  #api: SlackWebApi | undefined;
  #socket: SocketMode | undefined;
  #answered: AnsweredThreads | undefined;
  #botToken: Token = { value: "", envVar: "" };
  #self: BotIdentity | undefined;
  #stopped = false;

  constructor(options: SlackGatewayOptions) {
    this.#options = options;
  }

  async start(ctx: GatewayContext): Promise<void> {
    const o = this.#options;
    this.#ctx = ctx;
    this.#stopped = false;
    this.#self = undefined;
    const secrets = readSecrets(
      ctx,
      { bot: o.botTokenEnvVar, app: o.appTokenEnvVar },
      {
        ...(o.env ? { env: o.env } : {}),
        gateway: "slack",
        describe: {
          bot: "the app's bot token (xoxb-...)",
          app: "an app-level token with connections:write (xapp-...)",
        },
      },
    );
    this.#botToken = { value: secrets.bot, envVar: o.botTokenEnvVar };
    const appToken: Token = { value: secrets.app, envVar: o.appTokenEnvVar };
    const api = new SlackWebApi(o.apiBaseUrl ?? "https://slack.com/api", o.requestTimeoutMs ?? 30_000);
    this.#api = api;
    this.#answered = new AnsweredThreads(ctx.state, ctx.logger);
    await this.#answered.load();
    const watchdogMs = o.watchdogMs ?? 30_000;
    this.#socket = new SocketMode(ctx, {
      openUrl: async (signal) => {
        // Who the bot is comes first: without it, mentions and its own messages are not recognised.
        if (!this.#self) this.#self = await this.#whoAmI(signal);
        return String((await api.call("apps.connections.open", appToken, {}, signal)).url);
      },
      onEnvelope: (envelope) => this.#envelope(envelope),
      isRejection: (err) => isGatewaySendError(err) && err.credentials,
      onRejected: (err, detail) => this.#rejected(err, detail),
      watchdogMs,
      pingIntervalMs: o.pingIntervalMs ?? Math.max(1, Math.floor(watchdogMs / 3)),
      helloTimeoutMs: o.helloTimeoutMs ?? 10_000,
      backoff: o.backoff ?? { baseMs: 1_000, maxMs: 60_000 },
      ...(o.deafAfter ? { deafAfterMs: parseDuration(o.deafAfter) } : {}),
    });
    this.#socket.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#socket?.stop();
  }

  /**
   * The reply's Markdown (no `format`: the session hands it over as written) cut on its tree into
   * Markdown pieces that fit as mrkdwn and as markdown_text; `send`, `edit` and the stream render
   * each piece for the method they call.
   */
  chunk(markdown: string): string[] {
    return slackPieces(markdown, MESSAGE_LIMIT);
  }

  send(thread: string, piece: string): Promise<SendResult> {
    return this.#post(thread, markdownToMrkdwn(piece));
  }

  /** chat.postMessage; `signal` aborts it (a preview post the session gave up on). */
  async #post(thread: string, text: string, signal?: AbortSignal): Promise<SendResult> {
    const { channel, threadTs } = parseThread(thread);
    const remembered = this.#rememberAnswered(thread);
    const res = await this.#call(
      "chat.postMessage",
      { channel, text, ...(threadTs ? { thread_ts: threadTs } : {}) },
      signal,
    );
    await remembered;
    return { messageId: String(res.ts) };
  }

  /**
   * One file of a reply in Slack's three steps (https://api.slack.com/messaging/files#upload): ask
   * for an upload URL, POST the bytes there, complete the upload into the channel or thread with the
   * caption as its comment. A retry starts again with a new URL (an unfinished upload is never shared).
   */
  async sendFile(thread: string, file: OutboundFile): Promise<SendResult | undefined> {
    const { channel, threadTs } = parseThread(thread);
    const bytes = await file.bytes();
    const url = await this.#call(
      "files.getUploadURLExternal",
      { filename: file.name, length: bytes.length },
      undefined,
      true,
    );
    await postUpload(String(url.upload_url), bytes, file.name, this.#options.requestTimeoutMs ?? 30_000);
    const remembered = this.#rememberAnswered(thread);
    await this.#call(
      "files.completeUploadExternal",
      {
        files: [{ id: String(url.file_id), title: file.name }],
        channel_id: channel,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        ...(file.caption ? { initial_comment: file.caption } : {}),
      },
      undefined,
      true,
    );
    await remembered;
    // Slack answers the file, not the message it shares it in: there is no ts to edit later.
    return undefined;
  }

  async edit(thread: string, messageId: string, piece: string): Promise<void> {
    const text = markdownToMrkdwn(piece);
    await this.#call("chat.update", { channel: parseThread(thread).channel, ts: messageId, text });
  }

  async requestDecision(request: InteractionRequest, _options: SendOptions): Promise<SendResult> {
    const { channel, threadTs } = parseThread(request.thread);
    const prompt = markdownToMrkdwn(request.prompt);
    // Each button carries the codec's payload as its value (Slack allows 2 000 characters).
    const buttons = pressableDecisions(request.allowedDecisions).map((d) => ({
      type: "button",
      action_id: `agentsvc_${d}`,
      value: encodeDecision(request.requestId, d),
      text: { type: "plain_text", text: decisionLabel(d) },
      ...(d === "approve" ? { style: "primary" } : d === "reject" ? { style: "danger" } : {}),
    }));
    const remembered = this.#rememberAnswered(request.thread);
    const res = await this.#call("chat.postMessage", {
      channel,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      text: prompt.slice(0, MESSAGE_LIMIT),
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: prompt.slice(0, SECTION_LIMIT) } },
        { type: "actions", block_id: "agentsvc_decision", elements: buttons },
      ],
    });
    await remembered;
    return { messageId: String(res.ts) };
  }

  /** Replaces the buttons with the outcome, keeping the request text. */
  async onDecided(notice: DecidedNotice): Promise<void> {
    if (!notice.requestMessageId) return;
    const view = await this.#ctx?.interaction(notice.requestId);
    const prompt = markdownToMrkdwn(view?.prompt ?? "Approval request").slice(0, SECTION_LIMIT);
    const who = /^[UW][A-Z0-9]+$/.test(notice.decidedBy) ? ` by <@${notice.decidedBy}>` : "";
    const outcome = `${notice.decision === "approve" ? ":white_check_mark: Approved" : ":x: Rejected"}${who}`;
    await this.#call("chat.update", {
      channel: parseThread(notice.thread).channel,
      ts: notice.requestMessageId,
      text: `${prompt}\n${outcome}`.slice(0, MESSAGE_LIMIT),
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: prompt } },
        { type: "context", elements: [{ type: "mrkdwn", text: outcome }] },
      ],
    });
  }

  async #whoAmI(signal: AbortSignal): Promise<BotIdentity> {
    const me = await (this.#api as SlackWebApi).call("auth.test", this.#botToken, {}, signal);
    const userId = String(me.user_id ?? "");
    if (!userId) throw new Error("auth.test answered no user_id");
    return { userId, ...(me.bot_id ? { botId: String(me.bot_id) } : {}) };
  }

  /**
   * A channel thread the bot posts into is remembered before the post goes out, so a follow-up that
   * arrives while chat.postMessage is still answering is not taken for chatter.
   */
  #rememberAnswered(thread: string): Promise<void> | undefined {
    return parseThread(thread).threadTs ? this.#answered?.remember(thread) : undefined;
  }

  /** The session logs the one error naming the variable, holds the replies and stops this gateway. */
  #rejected(err: unknown, detail: string): void {
    const envVar = (isGatewaySendError(err) && err.envVar) || this.#options.appTokenEnvVar;
    this.#ctx?.credentialsRejected(envVar, detail);
  }

  async #envelope(envelope: Envelope): Promise<void> {
    const ctx = this.#ctx;
    const self = this.#self;
    if (!ctx || !self || this.#stopped) throw new Error("slack gateway stopped");
    const payload = envelope.payload ?? {};
    if (envelope.type === "events_api") {
      const answered = this.#answered as AnsweredThreads;
      const read = readEvent(payload, self, (thread) => answered.has(thread));
      if ("ignore" in read) return this.#ignored(envelope, read.ignore);
      // Files are stored (or refused) before deliver, whose inbox record keeps the refs; the envelope
      // is acked only after, so a failed download is redelivered and a stored one not fetched twice.
      const { files, ...message } = read.ok;
      const attachments: AttachmentRef[] = [];
      const auth = {
        botToken: this.#botToken.value,
        apiBaseUrl: this.#options.apiBaseUrl ?? "https://slack.com/api",
      };
      for (const file of files ?? [])
        attachments.push(await downloadFile(ctx, file, this.#options.media, auth));
      await ctx.deliver(attachments.length > 0 ? { ...message, attachments } : message);
      return;
    }
    if (envelope.type === "interactive") {
      const read = readPresses(payload, decodeDecision);
      if ("ignore" in read) return this.#ignored(envelope, read.ignore);
      for (const press of read.ok) {
        const result = await ctx.decide(press.requestId, { decision: press.decision }, press.by);
        if (!result.ok)
          ctx.logger.info(
            { requestId: press.requestId, user: press.by, code: result.code },
            "button press refused",
          );
      }
      return;
    }
    this.#ignored(envelope, `envelope ${envelope.type}`);
  }

  #ignored(envelope: Envelope, reason: string): void {
    this.#ctx?.logger.debug({ envelope: envelope.envelope_id, reason }, "envelope ignored");
  }

  async #call(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    form = false,
  ): Promise<Record<string, unknown>> {
    if (!this.#api) throw new Error("slack gateway not started");
    return this.#api.call(method, this.#botToken, params, signal, form);
  }
}

export const createGateway: GatewayFactory<SlackGatewayOptions> = (options) => new SlackGateway(options);
