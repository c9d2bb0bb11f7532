// A /sync room event to what the session gets: a message to deliver, a reaction that decides an
// approval, or a reason to ignore it. Payloads from https://spec.matrix.org/latest/client-server-api/:
// m.room.message (#mroommessage), threads (#threading: m.relates_to rel_type m.thread), edits
// (#event-replacements: rel_type m.replace), reactions (#mreaction: rel_type m.annotation, key),
// mentions (#user-and-room-mentions: m.mentions.user_ids).
import { type DecisionKind, type Inbound, joinThread } from "@agentsvc/adapter-kit";
import type { SyncEvent } from "./sync.js";

interface Relation {
  rel_type?: string;
  event_id?: string;
  key?: string;
}

export type Reading =
  | { kind: "message"; inbound: Inbound }
  | { kind: "reaction"; to: string; decision: DecisionKind; by: string }
  | { kind: "ignored"; reason: string };

const APPROVE_KEYS = new Set(["👍", "👍️", "✅", "✔️"]);
const REJECT_KEYS = new Set(["👎", "👎️", "❌", "✖️"]);

export function readEvent(roomId: string, members: number | undefined, e: SyncEvent, botId: string): Reading {
  if (e.sender === botId) return { kind: "ignored", reason: "own event" };
  const rel = (e.content["m.relates_to"] ?? {}) as Relation;
  if (e.type === "m.reaction") {
    const key = rel.key ?? "";
    const decision = APPROVE_KEYS.has(key) ? "approve" : REJECT_KEYS.has(key) ? "reject" : undefined;
    if (rel.rel_type !== "m.annotation" || !rel.event_id || !decision)
      return { kind: "ignored", reason: "reaction that is no decision" };
    return { kind: "reaction", to: rel.event_id, decision, by: e.sender };
  }
  if (e.type !== "m.room.message") return { kind: "ignored", reason: `event type ${e.type}` };
  if (rel.rel_type === "m.replace") return { kind: "ignored", reason: "edit of an earlier message" };
  const msgtype = e.content.msgtype;
  // m.notice is what bots write; answering one is how two bots loop (#mnotice).
  if (msgtype !== "m.text") return { kind: "ignored", reason: `msgtype ${String(msgtype)}` };
  let text = typeof e.content.body === "string" ? e.content.body : "";
  // A room whose size is not known yet is treated as a group: answering only mentions is the safe side.
  const group = members === undefined || members > 2;
  if (group) {
    const mentions = (e.content["m.mentions"] ?? {}) as { user_ids?: unknown };
    const named = Array.isArray(mentions.user_ids) && mentions.user_ids.includes(botId);
    if (!named && !text.includes(botId))
      return { kind: "ignored", reason: "group message without a mention of the bot" };
    text = text
      .split(botId)
      .join("")
      .replace(/^\s*:\s*/, "")
      .trim();
  }
  const root = rel.rel_type === "m.thread" ? rel.event_id : undefined;
  return {
    kind: "message",
    inbound: {
      dedupKey: e.event_id,
      thread: joinThread(roomId, root),
      text,
      author: { id: e.sender },
      chat: { type: group ? "group" : "direct", id: roomId },
      meta: { roomId, eventId: e.event_id, ...(root ? { threadRoot: root } : {}) },
    },
  };
}
