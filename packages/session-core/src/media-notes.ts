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
}

const A_NOUN = { image: "an image", audio: "an audio file", video: "a video", document: "a file" } as const;
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

/**
 * The turn's input for a message with attachments, for models that get no file parts: each stored
 * attachment named in a bracketed note (kind, name, type, size), a voice note or audio file by its
 * transcript when there is one. Refused attachments are left out (the user was answered already).
 */
export function withAttachmentNotes(text: string, refs: readonly AttachmentRef[] | undefined): string {
  const notes: string[] = [];
  for (const r of refs ?? []) {
    if (!("blob" in r)) continue;
    const what = `${A_NOUN[r.kind]}${r.name ? ` "${r.name}"` : ""}`;
    if (r.transcript !== undefined) notes.push(`[The user sent ${what}; its transcript: ${r.transcript}]`);
    else
      notes.push(
        `[The user attached ${what} (${r.contentType}, ${formatBytes(r.size)}), which you cannot open here.]`,
      );
  }
  if (notes.length === 0) return text;
  return text === "" ? notes.join("\n") : `${text}\n\n${notes.join("\n")}`;
}
