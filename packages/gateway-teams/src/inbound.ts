// A Bot Framework activity -> what the gateway does with it: a message for the agent, a card click,
// or a reason to ignore it (logged at debug). Activity schema:
// https://github.com/microsoft/botframework-sdk/blob/main/specs/botframework-activity/botframework-activity.md
// Teams sends a bot channel and group-chat messages only when it is @mentioned (without RSC:
// https://learn.microsoft.com/en-us/microsoftteams/platform/concepts/bots/bot-conversations/bots-conv-channel);
// with RSC it sends every message, so a group message without the bot's mention is ignored here too.
import { clickedDecision } from "./approval-card.js";

type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : undefined);

export interface TeamsMessage {
  kind: "message";
  id: string;
  conversationId: string;
  serviceUrl: string;
  text: string;
  author: { id: string; displayName?: string };
  /** `personal` for a one-on-one chat (the only kind that can stream), `groupChat`, `channel`. */
  conversationType: string;
}

export interface TeamsClick {
  kind: "click";
  /** `invoke` (Action.Execute) answers with an invoke response; `submit` (Action.Submit) is a plain message. */
  via: "invoke" | "submit";
  chosen: ReturnType<typeof clickedDecision>;
  authorId: string;
}

export type ReadActivity = TeamsMessage | TeamsClick | { ignore: string };

export function readActivity(activity: Json): ReadActivity {
  const type = str(activity.type) ?? "";
  if (type === "invoke" && activity.name !== "adaptiveCard/action")
    return { ignore: `invoke ${String(activity.name)}` };
  // conversationUpdate, messageReaction, typing, messageUpdate (edits), messageDelete, installationUpdate, ...
  if (type !== "message" && type !== "invoke") return { ignore: `activity type ${type}` };
  const conversation = isObject(activity.conversation) ? activity.conversation : {};
  const from = isObject(activity.from) ? activity.from : {};
  const recipient = isObject(activity.recipient) ? activity.recipient : {};
  const conversationId = str(conversation.id);
  const authorId = str(from.aadObjectId) ?? str(from.id);
  if (!conversationId || !authorId) return { ignore: "incomplete activity" };
  if (from.role === "bot" || str(from.id)?.startsWith("28:") || from.id === recipient.id)
    return { ignore: "message from a bot" };
  if (type === "invoke")
    return { kind: "click", via: "invoke", chosen: clickedDecision(activity.value), authorId };
  const chosen = clickedDecision(activity.value);
  if (chosen) return { kind: "click", via: "submit", chosen, authorId };

  const group = conversation.conversationType !== "personal";
  const { text, mentioned } = withoutBotMention(activity, str(recipient.id));
  if (group && !mentioned) return { ignore: "no mention of the bot" };
  const id = str(activity.id);
  if (!text) return { ignore: "no text (files and cards alone are not read)" };
  if (!id) return { ignore: "no activity id" };
  const name = str(from.name);
  return {
    kind: "message",
    id,
    conversationId,
    serviceUrl: str(activity.serviceUrl) ?? "",
    text,
    author: { id: authorId, ...(name ? { displayName: name } : {}) },
    conversationType: str(conversation.conversationType) ?? "personal",
  };
}

/**
 * The text with the bot's `<at>name</at>` removed and everyone else's reduced to the name. The bot is
 * mentioned when a `mention` entity names the activity's recipient.
 */
function withoutBotMention(activity: Json, botId: string | undefined): { text: string; mentioned: boolean } {
  let text = str(activity.text) ?? "";
  const entities = Array.isArray(activity.entities) ? activity.entities.filter(isObject) : [];
  let mentioned = false;
  for (const e of entities) {
    if (e.type !== "mention" || !isObject(e.mentioned) || e.mentioned.id !== botId) continue;
    mentioned = true;
    const tag = str(e.text);
    if (tag) text = text.split(tag).join("");
  }
  text = text.replace(/<at>([^<]*)<\/at>/g, "$1");
  return { text: text.replace(/[ \t]{2,}/g, " ").trim(), mentioned };
}
