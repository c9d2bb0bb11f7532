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
  /** The file's media type, as the tool declares it (the chat page serves all but safe images as downloads). */
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

/**
 * A tool result as the model reads it: each file of `files` reduced to its name, type and size
 * (the bytes go to the user as an outbox piece, never into a prompt).
 */
export function withoutFileBytes(output: unknown): unknown {
  const files = toolFilesOf(output);
  if (files.length === 0) return output;
  return {
    ...(output as object),
    files: files.map((f) => ({
      name: f.name,
      contentType: f.contentType,
      size: typeof f.data === "string" ? Buffer.byteLength(f.data, "base64") : f.data.byteLength,
      sentToUser: true,
    })),
  };
}

const A_NOUN: Record<AttachmentKind, string> = {
  image: "an image",
  audio: "an audio file",
  video: "a video",
  document: "a file",
};

/**
 * What a model that gets no file parts reads of a user message's stored attachments: one bracketed
 * line each (kind, name, type, size), or its transcript when there is one. Refused ones are left out.
 */
export function attachmentNotes(refs: readonly AttachmentRef[] | undefined): string[] {
  const notes: string[] = [];
  for (const r of refs ?? []) {
    if (!("blob" in r)) continue;
    const what = `${A_NOUN[r.kind]}${r.name ? ` "${r.name}"` : ""}`;
    if (r.transcript !== undefined) notes.push(`[The user sent ${what}; its transcript: ${r.transcript}]`);
    else
      notes.push(
        `[The user attached ${what} (${r.contentType}, ${r.size} bytes), which you cannot open here.]`,
      );
  }
  return notes;
}
