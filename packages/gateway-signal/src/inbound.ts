// One `receive` event of the daemon -> a direct message the session takes, or a reason to ignore
// it. Envelope fields after signal-cli's JSON output (signal-cli-jsonrpc(5), `receive` notification).
import type { AttachmentKind, Inbound } from "@agentsvc/adapter-kit";
import { threadOf } from "./thread.js";

interface DataMessage {
  timestamp?: number;
  message?: string | null;
  groupInfo?: unknown;
  groupV2?: unknown;
  reaction?: unknown;
  remoteDelete?: unknown;
  sticker?: unknown;
  attachments?: unknown[] | null;
}

interface Envelope {
  source?: string;
  sourceNumber?: string | null;
  sourceUuid?: string | null;
  sourceName?: string | null;
  timestamp?: number;
  dataMessage?: DataMessage | null;
  editMessage?: unknown;
  storyMessage?: unknown;
  syncMessage?: unknown;
  receiptMessage?: unknown;
  typingMessage?: unknown;
  callMessage?: unknown;
}

/** A file of a message as signal-cli lists it; the bytes come from its `getAttachment`. */
export interface SignalFile {
  /** The daemon's attachment id (its stored file's name): the dedup key of the download. */
  id: string;
  kind: AttachmentKind;
  name?: string;
  size?: number;
}

export type Classified =
  | { kind: "direct"; inbound: Inbound; sender: string; timestamp: number; files?: SignalFile[] }
  | { kind: "ignored"; reason: string };

/**
 * Direct messages with text (an attachment's caption is its text) reach the agent. Group messages,
 * edits, reactions, deletes, stickers, stories, receipts, typing, calls and sync messages (what
 * this account sent from another device) are ignored, each with its reason.
 */
export function classify(data: string, account: string): Classified {
  let parsed: { envelope?: Envelope; account?: string };
  try {
    parsed = JSON.parse(data);
  } catch {
    return { kind: "ignored", reason: "not JSON" };
  }
  if (parsed.account !== undefined && parsed.account !== account)
    return { kind: "ignored", reason: "another account" };
  const env = parsed.envelope;
  if (!env) return { kind: "ignored", reason: "no envelope" };
  if (env.syncMessage) return { kind: "ignored", reason: "sync message (this account, another device)" };
  if (env.editMessage) return { kind: "ignored", reason: "edit of an earlier message" };
  if (env.storyMessage) return { kind: "ignored", reason: "story" };
  const msg = env.dataMessage;
  if (!msg) return { kind: "ignored", reason: "no data message (receipt, typing or call)" };
  if (env.sourceNumber === account || env.source === account)
    return { kind: "ignored", reason: "from this account itself" };
  if (msg.groupInfo || msg.groupV2) return { kind: "ignored", reason: "group message" };
  if (msg.reaction) return { kind: "ignored", reason: "reaction" };
  if (msg.remoteDelete) return { kind: "ignored", reason: "delete for everyone" };
  if (msg.sticker) return { kind: "ignored", reason: "sticker" };
  const files = filesOf(msg.attachments);
  const text = typeof msg.message === "string" ? msg.message : "";
  if (text.trim() === "" && files.length === 0)
    return { kind: "ignored", reason: "no text and no attachment" };
  const sender = threadOf(env);
  const timestamp = env.timestamp ?? msg.timestamp;
  if (!sender || timestamp === undefined) return { kind: "ignored", reason: "no sender or timestamp" };
  const authorId = env.sourceUuid || sender;
  return {
    kind: "direct",
    sender,
    timestamp,
    ...(files.length > 0 ? { files } : {}),
    inbound: {
      // Signal's message identity is the sender plus the envelope timestamp.
      dedupKey: `${authorId}:${timestamp}`,
      thread: sender,
      text,
      author: { id: authorId, ...(env.sourceName ? { displayName: env.sourceName } : {}) },
      // Group messages are ignored above; the chat is the sender's number (allowFrom may name it).
      chat: { type: "direct", id: sender },
      meta: { timestamp },
    },
  };
}

function filesOf(attachments: unknown[] | null | undefined): SignalFile[] {
  const out: SignalFile[] = [];
  for (const raw of attachments ?? []) {
    const a = (raw ?? {}) as Record<string, unknown>;
    if (typeof a.id !== "string") continue;
    const mime = typeof a.contentType === "string" ? a.contentType : "";
    out.push({
      id: a.id,
      kind: mime.startsWith("image/")
        ? "image"
        : mime.startsWith("audio/")
          ? "audio"
          : mime.startsWith("video/")
            ? "video"
            : "document",
      ...(typeof a.filename === "string" ? { name: a.filename } : {}),
      ...(typeof a.size === "number" ? { size: a.size } : {}),
    });
  }
  return out;
}
