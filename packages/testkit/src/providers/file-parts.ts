// Files in a prompt as each provider documents them, and what each refuses (issue #46). The fakes
// take these parts and refuse the rest with the provider's own error body.
//
// OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat/create, content parts):
// `image_url` ({ url: https URL or data URL }), `input_audio` ({ data, format: wav | mp3 }), `file`
// ({ file: { file_data: data URL, filename } | { file_id } }). Images: PNG, JPEG, WEBP, non-animated GIF,
// on vision models only (https://platform.openai.com/docs/guides/images-vision); PDFs on the same
// models (https://platform.openai.com/docs/guides/pdf-files); audio on `-audio-` models
// (https://platform.openai.com/docs/guides/audio). A text-only model answers an image with 400
// "Invalid content type. image_url is only supported by certain models." (param
// `messages.[i].content.[j].type`), an unsupported picture with `invalid_image_format`.
//
// Anthropic Messages (https://docs.claude.com/en/docs/build-with-claude/vision,
// https://docs.claude.com/en/docs/build-with-claude/pdf-support): `image` blocks with a `base64`
// source of image/jpeg, image/png, image/gif or image/webp, at most 5 MB each; `document` blocks with
// a base64 application/pdf source (or a text/plain `text` source); a request at most 32 MB.
//
// Gemini (https://ai.google.dev/api/caching#Blob, https://ai.google.dev/gemini-api/docs/image-understanding,
// https://ai.google.dev/gemini-api/docs/document-processing, https://ai.google.dev/gemini-api/docs/audio):
// `inlineData` / `inline_data` parts ({ mimeType, data: base64 }); images PNG, JPEG, WEBP, HEIC, HEIF;
// application/pdf; audio WAV, MP3, AIFF, AAC, OGG, FLAC; a request with inline data at most 20 MB.

/** Which OpenAI models see images and PDFs, and which hear audio (the guides above). */
const OPENAI_VISION =
  /^(gpt-4o(?!-audio)|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-4-turbo|gpt-5|o1(?!-mini)|o3(?!-mini)|o4-mini)/;
const OPENAI_AUDIO = /-audio-/;
const OPENAI_IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"];

export const ANTHROPIC_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const ANTHROPIC_IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];

export const GEMINI_MAX_REQUEST_BYTES = 20 * 1024 * 1024;
const GEMINI_TYPES = [
  "image/png",
  "image/jpeg",
  "image/webp",
  "image/heic",
  "image/heif",
  "application/pdf",
  "audio/wav",
  "audio/mp3",
  "audio/mpeg",
  "audio/aiff",
  "audio/aac",
  "audio/ogg",
  "audio/flac",
];

/** An OpenAI refusal's pieces: status, message, type, code, param. */
export type OpenAIFileRefusal = [number, string, string, string | null, string];

const dataUrlType = (url: string): string | undefined => /^data:([^;,]+);base64,/.exec(url)?.[1];

/** The first file part of a Chat Completions request the model refuses (`model` undefined: any model takes every kind), or undefined. */
export function openAIFileRefusal(
  model: string | undefined,
  messages: unknown[],
): OpenAIFileRefusal | undefined {
  for (const [i, message] of messages.entries()) {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const [j, part] of content.entries()) {
      const p = part as Record<string, Record<string, unknown> | string | undefined>;
      const param = `messages.[${i}].content.[${j}].type`;
      const kind = p.type as string;
      if (kind === "image_url" || kind === "file") {
        if (model !== undefined && !OPENAI_VISION.test(model))
          return [
            400,
            `Invalid content type. ${kind} is only supported by certain models.`,
            "invalid_request_error",
            null,
            param,
          ];
      }
      if (kind === "image_url") {
        const url = String((p.image_url as { url?: unknown } | undefined)?.url ?? "");
        const type = dataUrlType(url);
        if (url.startsWith("data:") && !(type && OPENAI_IMAGE_TYPES.includes(type)))
          return [
            400,
            "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].",
            "invalid_request_error",
            "invalid_image_format",
            `messages.[${i}].content.[${j}].image_url`,
          ];
      }
      if (kind === "file") {
        const file = (p.file ?? {}) as { file_data?: unknown; file_id?: unknown };
        if (file.file_id === undefined && dataUrlType(String(file.file_data ?? "")) !== "application/pdf")
          return [
            400,
            `Invalid file data: 'messages.[${i}].content.[${j}].file.file_data'. Expected a base64-encoded data URL with an application/pdf MIME type.`,
            "invalid_request_error",
            "invalid_value",
            `messages.[${i}].content.[${j}].file.file_data`,
          ];
      }
      if (kind === "input_audio") {
        if (model !== undefined && !OPENAI_AUDIO.test(model))
          return [
            400,
            "Invalid content type. input_audio is only supported by certain models.",
            "invalid_request_error",
            null,
            param,
          ];
        const format = (p.input_audio as { format?: unknown } | undefined)?.format;
        if (format !== "wav" && format !== "mp3")
          return [
            400,
            `Invalid value: '${String(format)}'. Supported values are: 'wav' and 'mp3'.`,
            "invalid_request_error",
            "invalid_value",
            `messages.[${i}].content.[${j}].input_audio.format`,
          ];
      }
    }
  }
  return undefined;
}

/** The message of Anthropic's 400 for the first file block it refuses, or undefined. */
export function anthropicFileRefusal(messages: unknown[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const [j, block] of content.entries()) {
      const b = block as {
        type?: unknown;
        source?: { type?: unknown; media_type?: unknown; data?: unknown };
      };
      const at = `messages.${i}.content.${j}`;
      if (b.type === "image" && b.source?.type === "base64") {
        if (!ANTHROPIC_IMAGE_TYPES.includes(String(b.source.media_type)))
          return `${at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
        const bytes = Buffer.byteLength(String(b.source.data ?? ""), "base64");
        if (bytes > ANTHROPIC_MAX_IMAGE_BYTES)
          return `${at}.image.source.base64: image exceeds 5 MB maximum: ${bytes} bytes > ${ANTHROPIC_MAX_IMAGE_BYTES} bytes`;
      }
      if (b.type === "document") {
        const ok =
          (b.source?.type === "base64" && b.source.media_type === "application/pdf") ||
          (b.source?.type === "text" && b.source.media_type === "text/plain");
        if (!ok) return `${at}.document.source.base64.media_type: Input should be 'application/pdf'`;
      }
    }
  }
  return undefined;
}

/** The message of Gemini's 400 INVALID_ARGUMENT for inline data it refuses, or undefined. */
export function geminiFileRefusal(contents: unknown[], requestBytes: number): string | undefined {
  if (requestBytes > GEMINI_MAX_REQUEST_BYTES)
    return `Request payload size exceeds the limit: ${GEMINI_MAX_REQUEST_BYTES} bytes.`;
  for (const [i, content] of contents.entries()) {
    const parts = (content as { parts?: unknown }).parts;
    if (!Array.isArray(parts)) continue;
    for (const [j, part] of parts.entries()) {
      const p = part as { inlineData?: { mimeType?: unknown }; inline_data?: { mime_type?: unknown } };
      const blob = p.inlineData ?? p.inline_data;
      if (!blob) continue;
      const type = String(
        (blob as { mimeType?: unknown }).mimeType ?? (blob as { mime_type?: unknown }).mime_type,
      );
      if (!GEMINI_TYPES.includes(type))
        return `* GenerateContentRequest.contents[${i}].parts[${j}].inline_data.mime_type: Unsupported MIME type: ${type}\n`;
    }
  }
  return undefined;
}
