// Attachments (issue #46) as the run layer sees them: refs to stored blobs that an inbound message
// carries (never bytes), and the files a tool result may carry back to the user.

/** The four kinds a gateway entry's `media` block names. */
export type AttachmentKind = "image" | "audio" | "video" | "document";

/** Why an attachment was not taken in: the entry takes no media, not this kind, too large, or the download failed. */
export type RefusedReason = "disabled" | "type" | "size" | "failed";

/** One attachment of an inbound message, recorded with its inbox record. */
export type AttachmentRef =
  | {
      /** sha256 hex of the bytes: the blob's id in the store. */
      blob: string;
      kind: AttachmentKind;
      /** Sniffed from the bytes, not the platform's claim. */
      contentType: string;
      size: number;
      name?: string;
      /** The transcript of a voice note or audio file, once transcribed. */
      transcript?: string;
    }
  | { refused: RefusedReason; kind: AttachmentKind; name?: string; size?: number };

/**
 * A file a tool hands back to the user: a tool's result object may carry `files: ToolFile[]`
 * next to what the model reads. The model sees the name and size only; the gateway session
 * stores each file as a blob and sends it as its own outbox piece.
 */
export interface ToolFile {
  name: string;
  /** The file's media type (checked again against the bytes before it is stored). */
  contentType: string;
  /** The bytes, or base64 of them (JSON-only tool results). */
  data: Uint8Array | string;
  /** Text sent with the file where the platform takes a caption. */
  caption?: string;
}

/** The files of a tool result (`{ files: [...] }`); malformed entries are skipped. */
export function toolFilesOf(output: unknown): ToolFile[] {
  if (typeof output !== "object" || output === null) return [];
  const files = (output as { files?: unknown }).files;
  if (!Array.isArray(files)) return [];
  return files.filter(
    (f): f is ToolFile =>
      typeof f === "object" &&
      f !== null &&
      typeof f.name === "string" &&
      f.name.length > 0 &&
      typeof f.contentType === "string" &&
      (f.data instanceof Uint8Array || typeof f.data === "string"),
  );
}
