// The slack push-style gateway: Socket Mode only (socket-mode.ts), DMs and mentions in, replies in
// the thread, approvals as Block Kit buttons whose presses become decisions.
import type {
  BackoffOptions,
  DecidedNotice,
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  InteractionRequest,
  SendOptions,
  SendResult,
} from "@agentsvc/session-core";
import {
  ACTION_IDS,
  decisionOf,
  inboundOf,
  markdownToMrkdwn,
  parseThread,
  type SlackMessageEvent,
} from "./events.js";
import { type Envelope, SocketMode } from "./socket-mode.js";
import { SlackWebApi } from "./web-api.js";

export interface SlackGatewayOptions {
  /** Environment variable holding the bot token (`xoxb-...`). */
  botTokenEnvVar: string;
  /** Environment variable holding the app-level token (`xapp-...`, scope `connections:write`). */
  appTokenEnvVar: string;
  /** Web API base URL. Default https://slack.com/api. */
  apiBaseUrl?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** A connection silent (no frame, no pong) this long is replaced. Default 30 000 ms. */
  watchdogMs?: number;
  /** Ping period of the watchdog. Default a third of `watchdogMs`. */
  pingIntervalMs?: number;
  /** A new connection must say hello within this. Default 10 000 ms. */
  helloTimeoutMs?: number;
  /** Reconnect backoff. Default 1 s doubling to 60 s, +20% jitter. */
  backoff?: BackoffOptions;
  /** Web API call timeout. Default 30 000 ms. */
  requestTimeoutMs?: number;
  name?: string;
}

export const SLACK_MESSAGE_LIMIT = 4000;
const SECTION_LIMIT = 3000;

export class SlackGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "slack";
  readonly name = "slack";
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: true, editing: true };
  readonly messageLimit = SLACK_MESSAGE_LIMIT;
  #ctx: GatewayContext | undefined;
  #api: SlackWebApi | undefined;
  #socket: SocketMode | undefined;
  #botToken = "";
  #botUserId: string | undefined;
  #stopped = false;

  constructor(private readonly options: SlackGatewayOptions) {}

  async start(ctx: GatewayContext): Promise<void> {
    this.#ctx = ctx;
    this.#stopped = false;
    const env = this.options.env ?? ctx.env;
    this.#botToken = env[this.options.botTokenEnvVar] ?? "";
    const appToken = env[this.options.appTokenEnvVar] ?? "";
    for (const [key, value] of [
      [this.options.botTokenEnvVar, this.#botToken],
      [this.options.appTokenEnvVar, appToken],
    ])
      if (!value) ctx.logger.error(`slack: ${key} is empty; Slack will refuse the gateway's calls`);
    const api = new SlackWebApi(
      this.options.apiBaseUrl ?? "https://slack.com/api",
      this.options.requestTimeoutMs ?? 30_000,
    );
    this.#api = api;
    // Who the bot is: its own messages are skipped and its mention is stripped from the text.
    try {
      this.#botUserId = String((await api.call("auth.test", this.#botToken)).user_id ?? "") || undefined;
    } catch (err) {
      ctx.logger.error(
        { err },
        "slack: auth.test failed; check the bot token (mentions will not be recognised)",
      );
    }
    const watchdogMs = this.options.watchdogMs ?? 30_000;
    this.#socket = new SocketMode(ctx, {
      openUrl: async (signal) => String((await api.call("apps.connections.open", appToken, {}, signal)).url),
      onEnvelope: (envelope) => this.#envelope(envelope),
      watchdogMs,
      pingIntervalMs: this.options.pingIntervalMs ?? Math.max(1, Math.floor(watchdogMs / 3)),
      helloTimeoutMs: this.options.helloTimeoutMs ?? 10_000,
      backoff: this.options.backoff ?? { baseMs: 1_000, maxMs: 60_000 },
    });
    this.#socket.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#socket?.stop();
  }

  format(markdown: string): string {
    return markdownToMrkdwn(markdown);
  }

  async send(thread: string, text: string): Promise<SendResult> {
    const { channel, threadTs } = parseThread(thread);
    const res = await this.#call("chat.postMessage", {
      channel,
      text,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    return { messageId: String(res.ts) };
  }

  async edit(thread: string, messageId: string, text: string): Promise<void> {
    await this.#call("chat.update", { channel: parseThread(thread).channel, ts: messageId, text });
  }

  async requestDecision(request: InteractionRequest, _options: SendOptions): Promise<SendResult> {
    const { channel, threadTs } = parseThread(request.thread);
    const prompt = markdownToMrkdwn(request.prompt);
    const buttons = request.allowedDecisions.flatMap((d) => {
      const actionId = ACTION_IDS[d];
      if (!actionId) return [];
      const approve = d === "approve";
      return [
        {
          type: "button",
          action_id: actionId,
          value: request.requestId,
          style: approve ? "primary" : "danger",
          text: { type: "plain_text", text: approve ? "Approve" : "Reject" },
        },
      ];
    });
    const res = await this.#call("chat.postMessage", {
      channel,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      text: prompt.slice(0, SLACK_MESSAGE_LIMIT),
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: prompt.slice(0, SECTION_LIMIT) } },
        { type: "actions", block_id: "agentsvc_decision", elements: buttons },
      ],
    });
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
      text: `${prompt}\n${outcome}`.slice(0, SLACK_MESSAGE_LIMIT),
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: prompt } },
        { type: "context", elements: [{ type: "mrkdwn", text: outcome }] },
      ],
    });
  }

  async #envelope(envelope: Envelope): Promise<void> {
    const ctx = this.#ctx;
    if (!ctx || this.#stopped) throw new Error("slack gateway stopped");
    const payload = envelope.payload ?? {};
    if (envelope.type === "events_api") {
      const inbound = inboundOf((payload.event ?? {}) as SlackMessageEvent, this.#botUserId);
      if (inbound) await ctx.deliver(inbound);
      return;
    }
    if (envelope.type === "interactive" && payload.type === "block_actions") {
      const user = (payload.user as { id?: string } | undefined)?.id;
      for (const action of (payload.actions ?? []) as { action_id?: string; value?: string }[]) {
        const decision = decisionOf(action.action_id);
        if (!decision || !action.value || !user) continue;
        const result = await ctx.decide(action.value, { decision }, user);
        if (!result.ok)
          ctx.logger.info(
            { requestId: action.value, user, code: result.code },
            "slack: button press refused",
          );
      }
    }
  }

  async #call(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (!this.#api) throw new Error("slack gateway not started");
    return this.#api.call(method, this.#botToken, params);
  }
}

export function createSlackGateway(options: SlackGatewayOptions): SlackGateway {
  return new SlackGateway(options);
}
