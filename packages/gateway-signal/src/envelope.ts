// One `receive` event of the daemon -> a direct message the session takes, or nothing.
import type { Inbound } from "@agentsvc/session-core";

interface Envelope {
  source?: string;
  sourceNumber?: string | null;
  sourceUuid?: string | null;
  sourceName?: string | null;
  timestamp?: number;
  dataMessage?: {
    timestamp?: number;
    message?: string | null;
    groupInfo?: unknown;
    groupV2?: unknown;
  } | null;
}

export type Classified =
  | { kind: "direct"; inbound: Inbound; sender: string; timestamp: number }
  | { kind: "ignored"; reason: string };

/** Direct text messages only: group messages, receipts, typing and sync events are ignored. */
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
  const msg = env?.dataMessage;
  if (!env || !msg) return { kind: "ignored", reason: "no data message (receipt, typing or sync)" };
  if (msg.groupInfo || msg.groupV2) return { kind: "ignored", reason: "group message" };
  if (typeof msg.message !== "string" || msg.message.trim() === "")
    return { kind: "ignored", reason: "no text (attachment, reaction or sticker only)" };
  // The conversation is the sender: a number when Signal shares it, else the ACI; both are valid recipients.
  const sender = env.sourceNumber || env.source || env.sourceUuid;
  const timestamp = env.timestamp ?? msg.timestamp;
  if (!sender || timestamp === undefined) return { kind: "ignored", reason: "no sender or timestamp" };
  const authorId = env.sourceUuid || sender;
  return {
    kind: "direct",
    sender,
    timestamp,
    inbound: {
      // Signal's message identity is the sender plus the envelope timestamp.
      dedupKey: `${authorId}:${timestamp}`,
      thread: sender,
      text: msg.message,
      author: { id: authorId, ...(env.sourceName ? { displayName: env.sourceName } : {}) },
      meta: { timestamp },
    },
  };
}
