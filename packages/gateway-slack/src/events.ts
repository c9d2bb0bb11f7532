// Socket Mode payloads -> what the session takes, and markdown -> Slack mrkdwn.
import type { DecisionKind } from "@agentsvc/agent-core";
import type { Inbound } from "@agentsvc/session-core";

export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
}

/**
 * A DM is one conversation (`<channel>`); in a channel each thread is one (`<channel>:<thread ts>`),
 * so a mention starts a thread and the replies go into it.
 */
export function threadOf(e: SlackMessageEvent): string {
  if (e.channel_type === "im" && !e.thread_ts) return e.channel as string;
  return `${e.channel}:${e.thread_ts ?? e.ts}`;
}

export function parseThread(thread: string): { channel: string; threadTs?: string } {
  const i = thread.indexOf(":");
  return i < 0 ? { channel: thread } : { channel: thread.slice(0, i), threadTs: thread.slice(i + 1) };
}

/**
 * DMs and mentions of the bot become inbound messages; everything else (edits, joins, other bots,
 * the bot itself, channel chatter without a mention) is skipped. `message` and `app_mention` of one
 * channel message share the dedup key (channel + ts), so the session keeps one.
 */
export function inboundOf(e: SlackMessageEvent, botUserId: string | undefined): Inbound | undefined {
  if (e.type !== "message" && e.type !== "app_mention") return undefined;
  if (e.subtype && e.subtype !== "thread_broadcast") return undefined;
  if (e.bot_id || !e.user || !e.channel || !e.ts || (botUserId && e.user === botUserId)) return undefined;
  const mention = botUserId ? `<@${botUserId}>` : undefined;
  const isDm = e.channel_type === "im";
  if (e.type === "message" && !isDm && !(mention && e.text?.includes(mention))) return undefined;
  const text = (mention ? (e.text ?? "").split(mention).join("") : (e.text ?? "")).trim();
  if (!text) return undefined;
  return {
    dedupKey: `${e.channel}:${e.ts}`,
    thread: threadOf(e.type === "app_mention" ? { ...e, channel_type: "channel" } : e),
    text,
    author: { id: e.user, isBot: false },
    meta: { channel: e.channel, ts: e.ts },
  };
}

export const ACTION_IDS: Partial<Record<DecisionKind, string>> = {
  approve: "agentsvc_approve",
  reject: "agentsvc_reject",
};

export function decisionOf(actionId: string | undefined): DecisionKind | undefined {
  if (actionId === ACTION_IDS.approve) return "approve";
  if (actionId === ACTION_IDS.reject) return "reject";
  return undefined;
}

const escapeMrkdwn = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Markdown -> Slack mrkdwn: `&`, `<`, `>` escaped; bold, strikethrough, links and headings mapped; code kept. */
export function markdownToMrkdwn(markdown: string): string {
  return markdown
    .split(/(```[\s\S]*?```|`[^`\n]+`)/)
    .map((part, i) => {
      if (i % 2 === 1) return escapeMrkdwn(part.replace(/^```[\w+-]*\n/, "```\n"));
      return escapeMrkdwn(part)
        .replace(/^#{1,6} +(.+)$/gm, "*$1*")
        .replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, "<$2|$1>")
        .replace(/\*\*([^*\n]+)\*\*/g, "*$1*")
        .replace(/~~([^~\n]+)~~/g, "~$1~");
    })
    .join("");
}
