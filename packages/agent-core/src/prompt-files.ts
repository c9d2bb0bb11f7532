// A user message's stored files as prompt parts (issue #46): which ones a model gets as file parts
// and their bytes, read from the blob store when a prompt is built. Memory and prompt windows hold
// refs only; a turn reads each blob once and reuses it for every model call of the turn, and the
// bytes go with the turn. Files the model does not take, older files past the prompt's byte cap,
// and blobs no longer stored reach the model as the note naming them (`attachmentNotes`).
import type { LanguageModelV4FilePart } from "@ai-sdk/provider";
import type { AttachmentRef } from "./media.js";
import type { Message } from "./messages.js";
import { MAX_PROMPT_FILE_BYTES, type ModelFileInputs } from "./model-inputs.js";

/** Reads stored files (chat-store's `BlobStore` fits). */
export interface BlobReader {
  read(sha256: string): Promise<Uint8Array | undefined>;
}

/** The file part of a stored attachment for this prompt, or undefined (it goes as a note). */
export type FilePicker = (
  ref: Extract<AttachmentRef, { blob: string }>,
) => LanguageModelV4FilePart | undefined;

export class PromptFiles {
  readonly #bytes = new Map<string, Promise<Uint8Array | undefined>>();

  constructor(private readonly reader: BlobReader | undefined) {}

  /**
   * The parts `messages` carry for a model that takes `inputs`: newest first, within
   * `MAX_PROMPT_FILE_BYTES`. Audio with a transcript goes as its transcript.
   */
  async picker(messages: readonly Message[], inputs: ModelFileInputs): Promise<FilePicker | undefined> {
    if (!this.reader || inputs.kinds.size === 0) return undefined;
    const parts = new Map<string, LanguageModelV4FilePart>();
    let left = MAX_PROMPT_FILE_BYTES;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i];
      if (message?.role !== "user" || !message.attachments) continue;
      for (const ref of message.attachments) {
        if (!("blob" in ref) || parts.has(ref.blob) || ref.transcript !== undefined) continue;
        const fit = inputs.check(ref.contentType, ref.size);
        if (!("input" in fit) || ref.size > left) continue;
        const bytes = await this.#read(ref.blob);
        if (!bytes) continue;
        left -= ref.size;
        parts.set(ref.blob, {
          type: "file",
          mediaType: ref.contentType,
          ...(ref.name ? { filename: ref.name } : {}),
          data: { type: "data", data: bytes },
        });
      }
    }
    return parts.size === 0 ? undefined : (ref) => parts.get(ref.blob);
  }

  #read(sha256: string): Promise<Uint8Array | undefined> {
    let bytes = this.#bytes.get(sha256);
    if (!bytes) {
      bytes = (this.reader as BlobReader).read(sha256).catch(() => undefined);
      this.#bytes.set(sha256, bytes);
    }
    return bytes;
  }
}
