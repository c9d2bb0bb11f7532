// A mail's MIME parts into the blob store before deliver (issue #46). The parts arrive inside the
// message itself (mailparser's `attachments`, https://nodemailer.com/extras/mailparser/#attachment-object),
// so nothing is fetched: each part is typed by its bytes (webhook-kit's sniff, not the sender's
// Content-Type), checked against the entry's kinds and size, and stored content-addressed (the same
// part delivered again is the same blob). Inline parts (a picture pasted into the body) count too.
import type { AttachmentKind, AttachmentRef, SessionBlobs } from "@agentsvc/adapter-kit";
import { sniff } from "@agentsvc/webhook-kit";

export interface MediaOptions {
  types: readonly AttachmentKind[];
  maxBytes: number;
}

interface MimePart {
  filename?: string;
  contentType: string;
  content: Buffer;
}

export async function storeParts(
  parts: readonly MimePart[],
  media: MediaOptions | undefined,
  blobs: SessionBlobs | undefined,
): Promise<AttachmentRef[]> {
  const refs: AttachmentRef[] = [];
  for (const part of parts) {
    const named = part.filename ? { name: part.filename } : {};
    const claimed = kindOfMime(part.contentType);
    if (!media || !blobs || media.types.length === 0) {
      refs.push({ refused: "disabled", kind: claimed, ...named });
      continue;
    }
    if (part.content.length > media.maxBytes) {
      refs.push({ refused: "size", kind: claimed, size: part.content.length, ...named });
      continue;
    }
    const sniffed = await sniff(part.content);
    if (!media.types.includes(sniffed.kind)) {
      refs.push({ refused: "type", kind: sniffed.kind, ...named });
      continue;
    }
    const stored = await blobs.put(part.content, sniffed.contentType);
    refs.push({
      blob: stored.sha256,
      kind: sniffed.kind,
      contentType: sniffed.contentType,
      size: stored.size,
      ...named,
    });
  }
  return refs;
}

function kindOfMime(mime: string): AttachmentKind {
  if (mime.startsWith("image/")) return "image";
  if (mime.startsWith("audio/")) return "audio";
  if (mime.startsWith("video/")) return "video";
  return "document";
}
