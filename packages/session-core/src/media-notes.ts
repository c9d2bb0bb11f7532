// The one short answer a message gets for attachments the entry does not take in (issue #46,
// `media.unsupported: reply`), and whether anything is left for a turn.
import type { AttachmentRef } from "@agentsvc/adapter-kit";
import { formatBytes } from "@agentsvc/adapter-kit";

/** What an entry does with attachments it does not take in (config-schema's `mediaPolicyOf`). */
export interface MediaOptions {
  /** `reply` (default): one short answer per message; `ignore`: nothing. */
  unsupported: "reply" | "ignore";
  /** The entry's byte cap, named in the answer to a file that is too large. */
  maxBytes?: number;
  /** A transcribed voice note's text is quoted above the reply (`media.showTranscript`, default true). */
  showTranscript?: boolean;
}

/** Longest transcript quoted above a reply; a longer one is cut with an ellipsis. */
const TRANSCRIPT_SHOWN = 500;

/**
 * The line a reply starts with when the user's voice notes were transcribed: each transcript quoted
 * after a microphone, so the user sees what the agent heard. Undefined when there is none or the
 * entry turned it off.
 */
export function transcriptLines(
  userMessage: { attachments?: readonly AttachmentRef[] } | undefined,
  media: MediaOptions | undefined,
): string | undefined {
  if (media?.showTranscript === false) return undefined;
  const lines: string[] = [];
  for (const r of userMessage?.attachments ?? []) {
    if (!("blob" in r) || r.transcript === undefined || r.transcript === "") continue;
    const text =
      r.transcript.length > TRANSCRIPT_SHOWN ? `${r.transcript.slice(0, TRANSCRIPT_SHOWN)}…` : r.transcript;
    lines.push(`🎙 "${text}"`);
  }
  return lines.length > 0 ? lines.join("\n") : undefined;
}

const NOUN = {
  image: "pictures",
  audio: "voice notes or audio",
  video: "videos",
  document: "files",
} as const;

/** The answer for a message's refused attachments, or undefined (none refused, or `ignore`). */
export function unsupportedNote(
  refs: readonly AttachmentRef[] | undefined,
  media: MediaOptions | undefined,
): string | undefined {
  if (media?.unsupported === "ignore") return undefined;
  const refused = (refs ?? []).filter((r) => "refused" in r);
  if (refused.length === 0) return undefined;
  const lines = new Set<string>();
  for (const r of refused) {
    if (!("refused" in r)) continue;
    const name = r.name ? `"${r.name}"` : "That file";
    if (r.refused === "size") {
      lines.add(
        `${name} is too large for me${media?.maxBytes ? ` (limit ${formatBytes(media.maxBytes)})` : ""}.`,
      );
    } else if (r.refused === "failed")
      lines.add(`I could not download ${r.name ? `"${r.name}"` : "the attachment"}.`);
    else if (r.refused === "disabled")
      lines.add("I can only read text here, so I did not get the attachment.");
    else lines.add(`I can't take ${NOUN[r.kind]} here.`);
  }
  return [...lines].join(" ");
}

/** True when a message has no text and no attachment that was taken in: no turn to run. */
export function nothingToRun(text: string, refs: readonly AttachmentRef[] | undefined): boolean {
  return text.trim() === "" && !(refs ?? []).some((r) => "blob" in r);
}
