// The workspace side of the Slack fake: users write in DMs and channels (a channel mention is
// delivered twice, as `message` and `app_mention`, like Slack does), press Block Kit buttons, and
// the bot's chat.postMessage / chat.update calls are checked and recorded. The bot's own posts come
// back to it as `message` events carrying its bot_id and user id, as Slack sends them to an app
// subscribed to message.im / message.channels (https://api.slack.com/events/message).
import type { SlackBlock, SlackBotMessage, SlackButton } from "./types.js";

export interface UserSays {
  channel: string;
  user: string;
  text: string;
  /** Reuse a ts to deliver the same message again. Default: a new ts. */
  ts?: string;
  threadTs?: string;
  /** Default `im` for channel ids starting with D, else `channel`. */
  channelType?: "im" | "channel" | "group" | "mpim";
}

export type Deliver = (type: "events_api" | "interactive", payload: Record<string, unknown>) => Promise<void>;

export type WebAnswer = { ok: true; [k: string]: unknown } | { ok: false; error: string };

export interface WorkspaceOptions {
  /** The bot's bot_id (auth.test answers it; the bot's own messages carry it). */
  botId: string;
  echoOwnMessages: boolean;
}

const TEXT_LIMIT = 40_000;
/** markdown_text of the streaming methods: "Limit this field to 12,000 characters". */
const MARKDOWN_LIMIT = 12_000;

export class SlackWorkspace {
  readonly botMessages: SlackBotMessage[] = [];
  /** The workspace refuses the streaming methods (an app or plan without them): `unknown_method`. */
  refuseStreaming = false;
  /** The workspace's name and the bot user's name, as auth.test answers them. */
  teamName = "Fake Workspace";
  botUserName = "agent";
  #seq = 1;
  #event = 1;

  constructor(
    readonly teamId: string,
    readonly appId: string,
    readonly botUserId: string,
    private readonly deliver: Deliver,
    private readonly options: WorkspaceOptions = { botId: "B0BOT", echoOwnMessages: false },
  ) {}

  /**
   * Any Events API event (a subtype, a reaction, a Slackbot notice ...), wrapped in its
   * event_callback; resolves once acknowledged.
   */
  event(event: Record<string, unknown>): Promise<void> {
    return this.deliver("events_api", this.#callback(event));
  }

  nextTs(): string {
    return `${Math.floor(Date.now() / 1000)}.${String(this.#seq++).padStart(6, "0")}`;
  }

  /**
   * A user writes. Resolves once every envelope of the message was acknowledged (both of a
   * channel mention), rejects when Slack's retries run out. `ts` is the message's ts.
   */
  userSays(input: UserSays): { ts: string; acked: Promise<void> } {
    const ts = input.ts ?? this.nextTs();
    const channelType = input.channelType ?? (input.channel.startsWith("D") ? "im" : "channel");
    const base = {
      user: input.user,
      text: input.text,
      ts,
      channel: input.channel,
      event_ts: ts,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    };
    const deliveries = [
      this.deliver("events_api", this.#callback({ type: "message", channel_type: channelType, ...base })),
    ];
    if (channelType !== "im" && input.text.includes(`<@${this.botUserId}>`))
      deliveries.push(this.deliver("events_api", this.#callback({ type: "app_mention", ...base })));
    const acked = Promise.all(deliveries).then(() => undefined);
    acked.catch(() => undefined);
    return { ts, acked };
  }

  /**
   * A user presses the button whose value is `value`; throws when no bot message shows it. The
   * payload follows https://api.slack.com/reference/interaction-payloads/block-actions.
   */
  press(input: { value: string; user: string; actionId?: string }): Promise<void> {
    const msg = this.botMessages.find((m) => this.#button(m, input.value, input.actionId));
    const found = msg && this.#button(msg, input.value, input.actionId);
    if (!msg || !found) throw new Error(`slack fake: no message shows a button with value "${input.value}"`);
    const { button, blockId } = found;
    return this.deliver("interactive", {
      type: "block_actions",
      team: { id: this.teamId },
      user: { id: input.user, username: input.user, team_id: this.teamId },
      api_app_id: this.appId,
      container: {
        type: "message",
        message_ts: msg.ts,
        channel_id: msg.channel,
        is_ephemeral: false,
        ...(msg.threadTs ? { thread_ts: msg.threadTs } : {}),
      },
      channel: { id: msg.channel },
      message: {
        type: "message",
        bot_id: this.options.botId,
        user: this.botUserId,
        ts: msg.ts,
        text: msg.text,
        ...(msg.threadTs ? { thread_ts: msg.threadTs } : {}),
      },
      trigger_id: `trigger-${Date.now()}`,
      response_url: "http://127.0.0.1/unused",
      actions: [
        {
          type: "button",
          action_id: button.action_id,
          block_id: blockId,
          value: button.value,
          text: button.text,
          action_ts: this.nextTs(),
        },
      ],
    });
  }

  /** chat.postMessage / chat.update; undefined for an unknown method. */
  call(method: string, p: Record<string, unknown>): WebAnswer | undefined {
    if (method === "chat.postMessage") {
      const problem = this.#check(p);
      if (problem) return problem;
      const msg: SlackBotMessage = {
        channel: String(p.channel),
        ts: this.nextTs(),
        text: String(p.text ?? ""),
        updates: 0,
        ...(p.thread_ts ? { threadTs: String(p.thread_ts) } : {}),
        ...(Array.isArray(p.blocks) ? { blocks: p.blocks as SlackBlock[] } : {}),
      };
      this.botMessages.push(msg);
      if (this.options.echoOwnMessages) this.#echo(msg);
      return {
        ok: true,
        channel: msg.channel,
        ts: msg.ts,
        message: { type: "message", text: msg.text, ts: msg.ts, user: this.botUserId },
      };
    }
    if (method === "chat.update") {
      const msg = this.botMessages.find((m) => m.channel === p.channel && m.ts === p.ts);
      if (!msg) return { ok: false, error: "message_not_found" };
      // A message still streaming is changed through the stream methods only.
      if (msg.streaming) return { ok: false, error: "cant_update_message" };
      const problem = this.#check(p);
      if (problem) return problem;
      msg.text = String(p.text ?? msg.text);
      if (Array.isArray(p.blocks)) msg.blocks = p.blocks as SlackBlock[];
      msg.updates += 1;
      return { ok: true, channel: msg.channel, ts: msg.ts, text: msg.text };
    }
    if (method === "chat.startStream" || method === "chat.appendStream" || method === "chat.stopStream")
      return this.#stream(method, p);
    // https://docs.slack.dev/reference/methods/auth.test: the workspace's url and name (`team`), the
    // token's user name (`user`) and the ids; a bot token adds `bot_id`.
    if (method === "auth.test")
      return {
        ok: true,
        url: "https://fake.slack.test/",
        team: this.teamName,
        user: this.botUserName,
        team_id: this.teamId,
        user_id: this.botUserId,
        bot_id: this.options.botId,
        is_enterprise_install: false,
      };
    return undefined;
  }

  /**
   * The AI-app streaming methods (https://docs.slack.dev/reference/methods/chat.startStream,
   * chat.appendStream, chat.stopStream): a stream is a reply in a thread (`thread_ts`), outside a DM
   * it names its recipient (`recipient_user_id` and `recipient_team_id`), `markdown_text` of at most
   * 12 000 characters is appended to what the message shows, and a stream is stopped once; a call on
   * a stopped one is refused (the fake names that `message_not_in_streaming_state`).
   */
  #stream(method: string, p: Record<string, unknown>): WebAnswer {
    if (this.refuseStreaming) return { ok: false, error: "unknown_method" };
    if (!p.channel) return { ok: false, error: "channel_not_found" };
    const text = typeof p.markdown_text === "string" ? p.markdown_text : "";
    if (text.length > MARKDOWN_LIMIT) return { ok: false, error: "msg_too_long" };
    const channel = String(p.channel);
    if (method === "chat.startStream") {
      if (!p.thread_ts) return { ok: false, error: "invalid_arguments" };
      if (!channel.startsWith("D") && (!p.recipient_user_id || !p.recipient_team_id))
        return { ok: false, error: "invalid_arguments" };
      const msg: SlackBotMessage = {
        channel,
        ts: this.nextTs(),
        text,
        updates: 0,
        threadTs: String(p.thread_ts),
        streaming: true,
      };
      this.botMessages.push(msg);
      return { ok: true, channel, ts: msg.ts };
    }
    const msg = this.botMessages.find((m) => m.channel === channel && m.ts === p.ts);
    if (!msg) return { ok: false, error: "message_not_found" };
    if (!msg.streaming) return { ok: false, error: "message_not_in_streaming_state" };
    if (method === "chat.appendStream" && !text) return { ok: false, error: "invalid_arguments" };
    msg.text += text;
    msg.updates += 1;
    if (method === "chat.stopStream") msg.streaming = false;
    return { ok: true, channel, ts: msg.ts };
  }

  /** The bot's own message as the app receives it back. */
  #echo(msg: SlackBotMessage): void {
    const { botId } = this.options;
    this.event({
      type: "message",
      bot_id: botId,
      app_id: this.appId,
      user: this.botUserId,
      text: msg.text,
      ts: msg.ts,
      team: this.teamId,
      bot_profile: { id: botId, app_id: this.appId, name: "agent", deleted: false, team_id: this.teamId },
      channel: msg.channel,
      event_ts: msg.ts,
      channel_type: msg.channel.startsWith("D") ? "im" : "channel",
      ...(msg.threadTs ? { thread_ts: msg.threadTs } : {}),
    }).catch(() => undefined);
  }

  #check(p: Record<string, unknown>): WebAnswer | undefined {
    if (!p.channel) return { ok: false, error: "channel_not_found" };
    const text = typeof p.text === "string" ? p.text : "";
    if (!text && !Array.isArray(p.blocks)) return { ok: false, error: "no_text" };
    if (text.length > TEXT_LIMIT) return { ok: false, error: "msg_too_long" };
    return undefined;
  }

  #button(
    m: SlackBotMessage,
    value: string,
    actionId?: string,
  ): { button: SlackButton; blockId: string } | undefined {
    for (const [i, block] of (m.blocks ?? []).entries())
      for (const el of block.elements ?? []) {
        const b = el as SlackButton;
        if (b.type === "button" && b.value === value && (!actionId || b.action_id === actionId))
          return { button: b, blockId: block.block_id ?? `generated-${i}` };
      }
    return undefined;
  }

  #callback(event: Record<string, unknown>): Record<string, unknown> {
    return {
      token: "verification-token-unused",
      team_id: this.teamId,
      api_app_id: this.appId,
      event,
      type: "event_callback",
      event_id: `Ev${String(this.#event++).padStart(8, "0")}`,
      event_time: Math.floor(Date.now() / 1000),
    };
  }
}
