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

/**
 * Files a provider refused (a 400 for a request that carried them), per model: `<modelId> <sha256>`.
 * Later prompts to that model give them as the note; bounded (cleared past 10,000 entries).
 */
export class RefusedFiles {
  readonly #keys = new Set<string>();
  has(modelId: string, sha256: string): boolean {
    return this.#keys.has(`${modelId} ${sha256}`);
  }
  add(modelId: string, sha256s: readonly string[]): void {
    if (this.#keys.size + sha256s.length > 10_000) this.#keys.clear();
    for (const sha256 of sha256s) this.#keys.add(`${modelId} ${sha256}`);
  }
}

export class PromptFiles {
  readonly #bytes = new Map<string, Promise<Uint8Array | undefined>>();
  #withheld = false;
  /** The model and blobs of the last prompt that carried file parts. */
  last: { modelId: string; blobs: string[] } | undefined;

  constructor(
    private readonly reader: BlobReader | undefined,
    private readonly refused: RefusedFiles = new RefusedFiles(),
  ) {}

  /** After the provider refused a prompt with files: this turn's later prompts carry none, and that model never gets them again. */
  withhold(): void {
    this.#withheld = true;
    if (this.last) this.refused.add(this.last.modelId, this.last.blobs);
  }

  /**
   * The parts `messages` carry for a model that takes `inputs`: newest first, within
   * `MAX_PROMPT_FILE_BYTES`. Audio with a transcript goes as its transcript.
   */
  async picker(
    messages: readonly Message[],
    inputs: ModelFileInputs,
    modelId: string,
  ): Promise<FilePicker | undefined> {
    this.last = undefined;
    if (!this.reader || inputs.kinds.size === 0 || this.#withheld) return undefined;
    const parts = new Map<string, LanguageModelV4FilePart>();
    let left = MAX_PROMPT_FILE_BYTES;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i];
      if (message?.role !== "user" || !message.attachments) continue;
      for (const ref of message.attachments) {
        if (!("blob" in ref) || parts.has(ref.blob) || ref.transcript !== undefined) continue;
        if (this.refused.has(modelId, ref.blob)) continue;
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
    if (parts.size === 0) return undefined;
    this.last = { modelId, blobs: [...parts.keys()] };
    return (ref) => parts.get(ref.blob);
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
