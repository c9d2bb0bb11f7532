// A Bot Framework activity -> what the gateway does with it: a message for the agent, a card click,
// or a reason to ignore it (logged at debug). Activity schema:
// https://github.com/microsoft/botframework-sdk/blob/main/specs/botframework-activity/botframework-activity.md
// Teams sends a bot channel and group-chat messages only when it is @mentioned (without RSC:
// https://learn.microsoft.com/en-us/microsoftteams/platform/concepts/bots/bot-conversations/bots-conv-channel);
// with RSC it sends every message, so a group message without the bot's mention is ignored here too.
import type { AttachmentKind } from "@agentsvc/adapter-kit";
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
  /** Files the user sent (a personal chat's file shares, pasted pictures). */
  files: TeamsFile[];
}

/**
 * A file of a message activity (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4):
 * a personal chat's file share is `application/vnd.microsoft.teams.file.download.info` whose
 * `content.downloadUrl` is pre-authenticated (no token); a picture pasted into the compose box is an
 * `image/*` attachment whose `contentUrl` is on the Bot Connector service and needs the bot's token.
 */
export interface TeamsFile {
  /** The platform's stable id: the file's `uniqueId`, or the inline picture's contentUrl. */
  id: string;
  url: string;
  kind: AttachmentKind;
  name?: string;
  /** `share`: a OneDrive/SharePoint file (no token); `inline`: a picture on the connector (bot token). */
  via: "share" | "inline";
}

const FILE_DOWNLOAD_INFO = "application/vnd.microsoft.teams.file.download.info";

/** The kind a file share's `fileType` (its extension) claims; the bytes decide in the end. */
const EXTENSION_KINDS: Record<string, AttachmentKind> = {
  png: "image",
  jpg: "image",
  jpeg: "image",
  gif: "image",
  webp: "image",
  mp3: "audio",
  m4a: "audio",
  wav: "audio",
  ogg: "audio",
  mp4: "video",
  mov: "video",
  webm: "video",
};

/** The files of a message activity; cards, the `text/html` copy of the message and the rest are not files. */
function filesOf(activity: Json): TeamsFile[] {
  const attachments = Array.isArray(activity.attachments) ? activity.attachments.filter(isObject) : [];
  const files: TeamsFile[] = [];
  for (const a of attachments) {
    const type = str(a.contentType) ?? "";
    const name = str(a.name);
    const named = name ? { name } : {};
    if (type === FILE_DOWNLOAD_INFO && isObject(a.content)) {
      const url = str(a.content.downloadUrl);
      const id = str(a.content.uniqueId);
      if (!url || !id) continue;
      const ext = (str(a.content.fileType) ?? "").toLowerCase();
      files.push({ id, url, kind: EXTENSION_KINDS[ext] ?? "document", ...named, via: "share" });
    } else if (type.startsWith("image/")) {
      const url = str(a.contentUrl);
      if (url && /^https?:/i.test(url)) files.push({ id: url, url, kind: "image", ...named, via: "inline" });
    }
  }
  return files;
}

export interface TeamsClick {
  kind: "click";
  /** `invoke` (Action.Execute) answers with an invoke response; `submit` (Action.Submit) is a plain message. */
  via: "invoke" | "submit";
  chosen: ReturnType<typeof clickedDecision>;
  authorId: string;
}

/**
 * The user's answer to a file consent card: a `fileConsent/invoke` whose value carries the card's
 * context and, for Allow, the upload session (`uploadInfo`).
 */
export interface TeamsConsent {
  kind: "consent";
  action: "accept" | "decline";
  /** The `key` the card's acceptContext / declineContext carried. */
  key: string | undefined;
  conversationId: string;
  uploadInfo?: { contentUrl: string; name: string; uploadUrl: string; uniqueId: string; fileType: string };
}

export type ReadActivity = TeamsMessage | TeamsClick | TeamsConsent | { ignore: string };

function consentOf(value: unknown, conversationId: string): TeamsConsent | { ignore: string } {
  const v = isObject(value) ? value : {};
  const action = v.action === "accept" || v.action === "decline" ? v.action : undefined;
  if (v.type !== "fileUpload" || !action) return { ignore: "file consent of an unknown kind" };
  const context = isObject(v.context) ? v.context : {};
  const info = isObject(v.uploadInfo) ? v.uploadInfo : {};
  const [contentUrl, name, uploadUrl, uniqueId] = [
    info.contentUrl,
    info.name,
    info.uploadUrl,
    info.uniqueId,
  ].map(str);
  const uploadInfo =
    contentUrl && name && uploadUrl && uniqueId
      ? { contentUrl, name, uploadUrl, uniqueId, fileType: str(info.fileType) ?? "" }
      : undefined;
  return {
    kind: "consent",
    action,
    key: str(context.key),
    conversationId,
    ...(uploadInfo ? { uploadInfo } : {}),
  };
}

export function readActivity(activity: Json): ReadActivity {
  const type = str(activity.type) ?? "";
  const invokes = ["adaptiveCard/action", "fileConsent/invoke"];
  if (type === "invoke" && !invokes.includes(String(activity.name)))
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
  if (type === "invoke" && activity.name === "fileConsent/invoke")
    return consentOf(activity.value, conversationId);
  if (type === "invoke")
    return { kind: "click", via: "invoke", chosen: clickedDecision(activity.value), authorId };
  const chosen = clickedDecision(activity.value);
  if (chosen) return { kind: "click", via: "submit", chosen, authorId };

  const group = conversation.conversationType !== "personal";
  const { text, mentioned } = withoutBotMention(activity, str(recipient.id));
  if (group && !mentioned) return { ignore: "no mention of the bot" };
  const id = str(activity.id);
  const files = filesOf(activity);
  if (!text && files.length === 0) return { ignore: "no text or file (a card alone is not read)" };
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
    files,
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
