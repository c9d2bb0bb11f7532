// Which files a model takes as prompt parts (issue #46), per provider and model, from each
// provider's documentation. A model not in the table gets every attachment as a text note;
// `settings.fileInputs` overrides the table for one model (a local vision model, a new release).
//
// OpenAI Chat Completions: images (PNG, JPEG, WEBP, non-animated GIF) and PDFs on the vision models
//   https://platform.openai.com/docs/guides/images-vision, https://platform.openai.com/docs/guides/pdf-files;
//   audio (WAV, MP3) only on the `-audio-` models https://platform.openai.com/docs/guides/audio.
// Anthropic: images (JPEG, PNG, GIF, WebP; 5 MB each) on Claude 3 and later
//   https://docs.claude.com/en/docs/build-with-claude/vision, PDFs
//   https://docs.claude.com/en/docs/build-with-claude/pdf-support; a request is at most 32 MB.
// Google Gemini: images (PNG, JPEG, WEBP, HEIC, HEIF), PDFs, audio (WAV, MP3, AIFF, AAC, OGG, FLAC);
//   inline data up to a 20 MB request https://ai.google.dev/gemini-api/docs/image-understanding,
//   https://ai.google.dev/gemini-api/docs/document-processing, https://ai.google.dev/gemini-api/docs/audio.
// Groq: images on the Llama 4 models https://console.groq.com/docs/vision.
// Mistral: images on Pixtral and Mistral Small/Medium https://docs.mistral.ai/capabilities/vision/.
// xAI: images on the Grok vision and Grok 4 models https://docs.x.ai/docs/guides/image-understanding.
// Bedrock: Claude models take images and documents through Converse
//   https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html.

/** A kind of file part a model may take. */
export type FileInput = "image" | "pdf" | "audio";

const MB = 1024 * 1024;

/** What one provider takes, when its model matches. */
interface ProviderInputs {
  /** Media types per kind, as the provider lists them. */
  types: Record<FileInput, readonly string[]>;
  /** Largest single part in bytes (before base64), per kind. */
  maxPartBytes: Partial<Record<FileInput, number>>;
  /** Which models take which kinds (first match wins); no match: none. */
  models: readonly [RegExp, readonly FileInput[]][];
}

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"];

const OPENAI: ProviderInputs = {
  types: { image: IMAGE_TYPES, pdf: ["application/pdf"], audio: ["audio/wav", "audio/mpeg", "audio/mp3"] },
  maxPartBytes: { image: 20 * MB, pdf: 32 * MB, audio: 20 * MB },
  models: [
    [/-audio-/, ["audio"]],
    [
      /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-4-turbo|gpt-5|o1(?!-mini)|o3(?!-mini)|o4-mini)/,
      ["image", "pdf"],
    ],
  ],
};

const PROVIDERS: Record<string, ProviderInputs> = {
  openai: OPENAI,
  azure: OPENAI,
  anthropic: {
    types: {
      image: ["image/jpeg", "image/png", "image/gif", "image/webp"],
      pdf: ["application/pdf"],
      audio: [],
    },
    maxPartBytes: { image: 5 * MB, pdf: 24 * MB },
    models: [[/^claude-(3|opus|sonnet|haiku)/, ["image", "pdf"]]],
  },
  google: {
    types: {
      image: ["image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"],
      pdf: ["application/pdf"],
      audio: ["audio/wav", "audio/mpeg", "audio/mp3", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac"],
    },
    maxPartBytes: { image: 14 * MB, pdf: 14 * MB, audio: 14 * MB },
    models: [[/^gemini-/, ["image", "pdf", "audio"]]],
  },
  "amazon-bedrock": {
    types: {
      image: ["image/png", "image/jpeg", "image/webp", "image/gif"],
      pdf: ["application/pdf"],
      audio: [],
    },
    maxPartBytes: { image: 3.75 * MB, pdf: 4.5 * MB },
    models: [[/anthropic\.claude-(3|opus|sonnet|haiku)/, ["image", "pdf"]]],
  },
  groq: {
    types: { image: ["image/png", "image/jpeg", "image/webp", "image/gif"], pdf: [], audio: [] },
    maxPartBytes: { image: 3 * MB },
    models: [[/llama-4/, ["image"]]],
  },
  mistral: {
    types: { image: ["image/png", "image/jpeg", "image/webp", "image/gif"], pdf: [], audio: [] },
    maxPartBytes: { image: 10 * MB },
    models: [[/^(pixtral|mistral-small|mistral-medium)/, ["image"]]],
  },
  xai: {
    types: { image: ["image/png", "image/jpeg"], pdf: [], audio: [] },
    maxPartBytes: { image: 10 * MB },
    models: [[/^grok-(4|.*vision)/, ["image"]]],
  },
};

/**
 * Bytes of file parts one prompt carries at most (before base64): 15 MB keeps the base64 request
 * under Gemini's 20 MB inline limit and Anthropic's 32 MB. The newest files go first; older ones
 * past it reach the model as a note.
 */
export const MAX_PROMPT_FILE_BYTES = 15 * MB;

/** What a model takes: kinds and the rule for one file. */
export interface ModelFileInputs {
  kinds: ReadonlySet<FileInput>;
  /** The file part kind of a stored file this model takes, or why not. */
  check(contentType: string, size: number): { input: FileInput } | { note: "type" | "size" };
}

/**
 * The file parts `modelId` on `provider` takes: `override` (a model's `settings.fileInputs`)
 * when given, else the table. An override on a provider the table does not know (OpenAI-compatible
 * servers, Ollama) accepts the common image types, PDF and WAV/MP3 audio, 20 MB a part.
 */
export function modelFileInputs(
  provider: string,
  modelId: string,
  override?: readonly FileInput[],
): ModelFileInputs {
  const known = PROVIDERS[provider];
  const kinds = new Set<FileInput>(override ?? known?.models.find(([re]) => re.test(modelId))?.[1] ?? []);
  const types = known?.types ?? OPENAI.types;
  const maxPartBytes = known?.maxPartBytes ?? { image: 20 * MB, pdf: 20 * MB, audio: 20 * MB };
  return {
    kinds,
    check(contentType, size) {
      const input = (["image", "pdf", "audio"] as const).find(
        (k) => kinds.has(k) && types[k].includes(contentType),
      );
      if (!input) return { note: "type" };
      if (size > (maxPartBytes[input] ?? 20 * MB)) return { note: "size" };
      return { input };
    },
  };
}
