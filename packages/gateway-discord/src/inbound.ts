// Dispatches -> what the session takes; close codes -> what the connection does next.
import type { DecisionKind } from "@agentsvc/agent-core";
import type { Inbound } from "@agentsvc/session-core";

export interface DiscordMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: { id: string; username?: string; global_name?: string | null; bot?: boolean };
  content: string;
  mentions?: { id: string }[];
}

/** Close codes after which reconnecting cannot help: stop, and say why. */
export const FATAL_CLOSE: Record<number, string> = {
  4004: "authentication failed: the bot token is wrong (check the variable named by botTokenEnvVar)",
  4010: "invalid shard sent in Identify",
  4011: "sharding required: the bot is in too many guilds for one connection",
  4012: "invalid API version",
  4013: "invalid intents: the intents value is not a valid bit field",
  4014: "disallowed intents: enable the privileged intents this entry asks for (Message Content Intent) in the Developer Portal, Bot page, or remove them from `intents`",
};

/** Close codes after which the session is gone: identify afresh. */
export const NEW_SESSION_CLOSE = new Set([4007, 4009]);

/**
 * DMs (no guild) and guild messages that mention the bot become inbound messages; bots
 * (including this one) are skipped. Returns "empty" for a message that should have had text.
 */
export function inboundOf(m: DiscordMessage, botUserId: string | undefined): Inbound | "empty" | undefined {
  if (m.author.bot || (botUserId && m.author.id === botUserId)) return undefined;
  const mentioned = botUserId !== undefined && (m.mentions ?? []).some((u) => u.id === botUserId);
  if (m.guild_id && !mentioned) return undefined;
  const text = botUserId
    ? m.content.replace(new RegExp(`<@!?${botUserId}>`, "g"), "").trim()
    : m.content.trim();
  if (!text) return "empty";
  const name = m.author.global_name ?? m.author.username;
  return {
    dedupKey: m.id,
    thread: m.channel_id,
    text,
    author: { id: m.author.id, ...(name ? { displayName: name } : {}), isBot: false },
    meta: { channelId: m.channel_id, messageId: m.id, ...(m.guild_id ? { guildId: m.guild_id } : {}) },
  };
}

/** Button custom_id: `agentsvc:<approve|reject>:<requestId>` (at most 100 characters). */
export function customId(decision: DecisionKind, requestId: string): string {
  return `agentsvc:${decision}:${requestId}`;
}

export function parseCustomId(
  id: string | undefined,
): { decision: DecisionKind; requestId: string } | undefined {
  const m = /^agentsvc:(approve|reject):(.+)$/.exec(id ?? "");
  return m ? { decision: m[1] as DecisionKind, requestId: m[2] as string } : undefined;
}
