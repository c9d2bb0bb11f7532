// What a file is, from its first bytes, never from the platform's claim or the file name: the
// `file-type` package (https://github.com/sindresorhus/file-type) reads the signature; its media
// type decides the kind (image, audio, video, else document). What it does not recognise is
// `text/plain` when it is valid UTF-8 without control bytes, else `application/octet-stream`.
import type { AttachmentKind } from "@agentsvc/adapter-kit";

export interface Sniffed {
  contentType: string;
  kind: AttachmentKind;
}

/** Bytes enough for the signatures file-type reads (its `reasonableDetectionSizeInBytes`, 4100). */
export const SNIFF_BYTES = 4100;

/**
 * file-type's names where the one the media layer matches differs: audio/mp4 for M4A (RFC 4337);
 * an Ogg stream whose codec it does not name is audio/ogg (RFC 5334 keeps application/ogg for
 * unknown content, but Ogg video is Theora, which file-type names video/ogg, and what platforms
 * send in Ogg is voice).
 */
const REGISTERED: Record<string, string> = {
  "audio/x-m4a": "audio/mp4",
  "audio/vnd.wave": "audio/wav",
  "application/ogg": "audio/ogg",
};

/** The media type and kind of a file's head (at least its first `SNIFF_BYTES`, or all of a shorter file). */
export async function sniff(head: Uint8Array): Promise<Sniffed> {
  // Loaded at the first file, not with the package: file-type and its readers (~40 modules) are
  // not on the way to a service's first answer (#45).
  const { fileTypeFromBuffer } = await import("file-type");
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  if (!found) return isText(head) ? doc("text/plain") : doc("application/octet-stream");
  // Parameters (Ogg Opus is "audio/ogg; codecs=opus") are not part of the type the media layer matches.
  const bare = found.mime.split(";")[0]?.trim() ?? found.mime;
  const contentType = REGISTERED[bare] ?? bare;
  const top = contentType.split("/")[0];
  if (top === "image" || top === "audio" || top === "video") return { contentType, kind: top };
  return doc(contentType);
}

/** Image types a browser may show inline from our origin (no SVG: it can carry script). */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
]);

function isText(head: Uint8Array): boolean {
  if (head.length === 0) return false;
  for (const b of head) if (b === 0 || (b < 0x09 && b !== 0x1b)) return false;
  try {
    // A valid UTF-8 head (the last character may be cut).
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)));
    return true;
  } catch {
    return false;
  }
}

const doc = (contentType: string): Sniffed => ({ contentType, kind: "document" });
