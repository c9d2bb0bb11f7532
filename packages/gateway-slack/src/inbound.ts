// Socket Mode payloads -> what the session takes, or the reason they are ignored.
// Events: https://api.slack.com/events/message (and its subtype pages), https://api.slack.com/events/app_mention.
// Presses: https://api.slack.com/reference/interaction-payloads/block-actions.
import { type AttachmentKind, claimedFile, type DecisionKind, type Inbound } from "@agentsvc/adapter-kit";
import { readSlackText } from "./inbound-text.js";
import { threadId } from "./thread.js";

export interface SlackEvent {
  type?: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  /** The author's own workspace (Slack Connect, Enterprise Grid); `team` where it is not given. */
  user_team?: string;
  team?: string;
  /** Files a `file_share` message carries (https://api.slack.com/types/file). */
  files?: unknown[];
}

/** A user's file as the bot fetches it: `url_private` with the bot token (https://api.slack.com/types/file#authentication). */
export interface SlackFile {
  /** Slack's file id (`F...`): one file for good, the dedup key of the download. */
  id: string;
  url: string;
  kind: AttachmentKind;
  name?: string;
  size?: number;
}

/**
 * The downloadable files of a message. Skipped: external files (`mode: external`, bytes kept
 * elsewhere), deleted ones (`tombstone`) and files without `url_private` (Slack Connect files whose
 * `file_access` is `check_file_info` need files.info first: not taken in yet).
 */
function filesOf(e: SlackEvent): SlackFile[] {
  const out: SlackFile[] = [];
  for (const raw of e.files ?? []) {
    const f = (raw ?? {}) as Record<string, unknown>;
    if (typeof f.id !== "string" || typeof f.url_private !== "string") continue;
    if (f.mode === "external" || f.mode === "tombstone") continue;
    out.push({
      id: f.id,
      url: f.url_private,
      ...claimedFile(f.mimetype, f.name, f.size),
    });
  }
  return out;
}

/** Who the bot is (auth.test): its user id is mentioned as `<@U...>`; its posts carry its bot_id. */
export interface BotIdentity {
  userId: string;
  botId?: string;
}

export type Reading<T> = { ok: T } | { ignore: string };

/** Subtypes a person writes: their text reaches the agent. Every other subtype is a system event. */
const PERSON_SUBTYPES = new Set(["file_share", "me_message", "thread_broadcast"]);
/** Slack's own system user (Slackbot notices, reminders). */
const SYSTEM_USERS = new Set(["USLACKBOT", "USLACK"]);

/**
 * One Events API payload -> an inbound message. DMs are always answered; elsewhere only a mention
 * of the bot (`app_mention`, or the `message` event of the same post: one dedup key, channel + ts),
 * or a follow-up in a thread the bot already answered in (`answered`). The mention is stripped.
 */
export function readEvent(
  payload: Record<string, unknown>,
  self: BotIdentity,
  answered: (thread: string) => boolean,
): Reading<Inbound & { files?: SlackFile[] }> {
  if (payload.type !== "event_callback") return { ignore: `payload ${String(payload.type)}` };
  const e = (payload.event ?? {}) as SlackEvent;
  if (e.type !== "message" && e.type !== "app_mention") return { ignore: `event ${String(e.type)}` };
  if (e.subtype && !PERSON_SUBTYPES.has(e.subtype))
    return { ignore: `subtype ${e.subtype}${e.subtype === "bot_message" ? " (from a bot)" : ""}` };
  if ((self.botId && e.bot_id === self.botId) || e.user === self.userId) return { ignore: "own message" };
  if (e.bot_id) return { ignore: `from a bot (${e.bot_id})` };
  if (e.user && SYSTEM_USERS.has(e.user)) return { ignore: `system notice (${e.user})` };
  if (!e.user || !e.channel || !e.ts) return { ignore: "no user, channel or ts" };
  const mention = new RegExp(`<@${self.userId}(?:\\|[^>]*)?>`, "g");
  const mentioned = e.type === "app_mention" || (e.text ?? "").search(mention) >= 0;
  const isDm = e.channel_type === "im" && e.type === "message";
  const thread = isDm ? threadId(e.channel, e.thread_ts) : threadId(e.channel, e.thread_ts ?? e.ts);
  if (!isDm && !mentioned && !(e.thread_ts && answered(thread)))
    return { ignore: "channel message without a mention, outside the bot's threads" };
  const text = readSlackText((e.text ?? "").replace(mention, " "))
    .replace(/[ \t]{2,}/g, " ")
    .trim();
  // The recipient's own workspace, which a stream into a shared channel must name: not the installing one.
  const team = e.user_team ?? e.team ?? (typeof payload.team_id === "string" ? payload.team_id : undefined);
  const files = filesOf(e);
  if (!text && files.length === 0) return { ignore: "no text" };
  return {
    ok: {
      ...(files.length > 0 ? { files } : {}),
      dedupKey: `${e.channel}:${e.ts}`,
      thread,
      text,
      author: { id: e.user, isBot: false },
      chat: { type: isDm ? "direct" : "group", id: e.channel },
      // Who asked, and in which workspace: a stream into a channel names its recipient.
      meta: {
        channel: e.channel,
        ts: e.ts,
        user: e.user,
        ...(team ? { team } : {}),
      },
    },
  };
}

export interface Press {
  requestId: string;
  decision: DecisionKind;
  by: string;
}

/** One block_actions payload -> the decisions its buttons name (values made by the decision codec). */
export function readPresses(
  payload: Record<string, unknown>,
  decode: (value: string) => Omit<Press, "by"> | undefined,
): Reading<Press[]> {
  if (payload.type !== "block_actions") return { ignore: `interactive ${String(payload.type)}` };
  const by = (payload.user as { id?: string } | undefined)?.id;
  if (!by) return { ignore: "press without a user" };
  const presses = ((payload.actions ?? []) as { value?: string }[]).flatMap((a) => {
    const decoded = typeof a.value === "string" ? decode(a.value) : undefined;
    return decoded ? [{ ...decoded, by }] : [];
  });
  return presses.length ? { ok: presses } : { ignore: "no agentsvc button in the press" };
}
