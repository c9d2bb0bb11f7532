// What a file is, from its first bytes, never from the platform's claim or the file name. Only the
// formats the media layer hands on are recognised; anything else is `application/octet-stream`
// (a document only when the entry takes documents). Signatures: each format's own specification
// (PNG, JPEG/JFIF, GIF89a, RIFF WEBP/WAVE, ISO BMFF `ftyp`, EBML (WebM), Ogg, ID3/MPEG audio, PDF,
// ZIP (Office Open XML), AMR).
import type { AttachmentKind } from "@agentsvc/adapter-kit";

export interface Sniffed {
  contentType: string;
  kind: AttachmentKind;
}

/** Bytes enough for every signature below. */
export const SNIFF_BYTES = 64;

const ascii = (b: Uint8Array, at: number, text: string) => {
  if (b.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
};
const bytes = (b: Uint8Array, at: number, sig: number[]) =>
  b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);

/** The media type and kind of a file's head (at least its first `SNIFF_BYTES`, or all of a shorter file). */
export function sniff(head: Uint8Array): Sniffed {
  if (bytes(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return image("image/png");
  if (bytes(head, 0, [0xff, 0xd8, 0xff])) return image("image/jpeg");
  if (ascii(head, 0, "GIF87a") || ascii(head, 0, "GIF89a")) return image("image/gif");
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WEBP")) return image("image/webp");
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WAVE")) return audio("audio/wav");
  if (ascii(head, 0, "OggS")) return audio("audio/ogg");
  if (ascii(head, 0, "#!AMR")) return audio("audio/amr");
  if (ascii(head, 0, "ID3") || bytes(head, 0, [0xff, 0xfb]) || bytes(head, 0, [0xff, 0xf3])) {
    return audio("audio/mpeg");
  }
  if (ascii(head, 0, "fLaC")) return audio("audio/flac");
  if (ascii(head, 4, "ftyp")) {
    const brand = String.fromCharCode(...head.subarray(8, 12));
    if (brand === "M4A " || brand === "M4B ") return audio("audio/mp4");
    if (brand === "heic" || brand === "heix" || brand === "mif1") return image("image/heic");
    if (brand.startsWith("3g")) return video("video/3gpp");
    if (brand === "qt  ") return video("video/quicktime");
    return video("video/mp4");
  }
  if (bytes(head, 0, [0x1a, 0x45, 0xdf, 0xa3])) return video("video/webm");
  if (ascii(head, 0, "%PDF-")) return doc("application/pdf");
  if (bytes(head, 0, [0x50, 0x4b, 0x03, 0x04])) return doc("application/zip");
  if (isText(head)) return doc("text/plain");
  return doc("application/octet-stream");
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

const image = (contentType: string): Sniffed => ({ contentType, kind: "image" });
const audio = (contentType: string): Sniffed => ({ contentType, kind: "audio" });
const video = (contentType: string): Sniffed => ({ contentType, kind: "video" });
const doc = (contentType: string): Sniffed => ({ contentType, kind: "document" });
