// What a gateway entry takes in besides text (issue #46): pictures, voice notes, videos, files.
// Opt-in per entry; without a `media` block nothing is downloaded and an attachment gets one
// short answer (`reply`), except WhatsApp, whose spec row stays caption-only (`ignore`).
import * as v from "valibot";
import { parseModelString } from "../model-providers.js";
import { bool, envVarName, httpUrl, integerIn, strict } from "./common.js";

export const MEDIA_TYPES = ["image", "audio", "video", "document"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

const UNSUPPORTED = ["reply", "ignore"] as const;

/** The transcription model when `transcribe` is on and none is named (OpenAI's Whisper). */
export const DEFAULT_TRANSCRIPTION_MODEL = "openai/whisper-1";
/** Providers whose AI SDK package transcribes (agent-core's createTranscriber). */
const TRANSCRIBING = ["openai", "groq", "azure"];
const transcriptionString = v.pipe(
  v.string('expected "openai/<model>", "groq/<model>" or "azure/<deployment>"'),
  v.check(
    (s) => TRANSCRIBING.includes(parseModelString(s)?.provider ?? ""),
    'expected "openai/<model>", "groq/<model>" or "azure/<deployment>" (a provider with transcription models)',
  ),
);
const transcriptionModelSchema = v.union(
  [
    transcriptionString,
    strict(
      {
        model: transcriptionString,
        apiKeyEnvVar: v.optional(envVarName),
        baseURL: v.optional(httpUrl("transcription base URL")),
      },
      "transcription model",
    ),
  ],
  'expected "provider/model" or { model, apiKeyEnvVar?, baseURL? }',
);

/** `media.transcriptionModel` after parsing. */
export type TranscriptionModelConfig = string | { model: string; apiKeyEnvVar?: string; baseURL?: string };

/** Default byte cap of one attachment when a `media` block names none (20 MiB, Telegram's getFile limit). */
export const DEFAULT_MEDIA_MAX_BYTES = 20 * 1024 * 1024;

const mediaSchema = strict(
  {
    maxBytes: v.optional(
      integerIn(1, 2 * 1024 * 1024 * 1024, "largest attachment in bytes"),
      DEFAULT_MEDIA_MAX_BYTES,
    ),
    types: v.optional(
      v.pipe(
        v.array(
          v.picklist(MEDIA_TYPES, `must be one of ${MEDIA_TYPES.join(", ")}`),
          `must be a list of ${MEDIA_TYPES.join(", ")}`,
        ),
        v.transform((types) => [...new Set(types)]),
      ),
      [...MEDIA_TYPES],
    ),
    transcribe: v.optional(bool("transcribe voice notes and audio for the model"), false),
    transcriptionModel: v.optional(transcriptionModelSchema, DEFAULT_TRANSCRIPTION_MODEL),
    showTranscript: v.optional(bool("quote a voice note's transcript above the reply"), true),
    unsupported: v.optional(
      v.picklist(UNSUPPORTED, `must be reply or ignore (what an attachment the entry does not take in gets)`),
      "reply",
    ),
  },
  "media",
);

/** The `media` key of every push gateway entry and of the webui exposure. */
export const mediaKeys = { media: v.optional(mediaSchema) };

/** An entry's `media` block after defaults. */
export interface MediaConfig {
  /** Largest attachment taken in, in bytes (default 20 MiB). */
  maxBytes: number;
  /** Kinds taken in (default all four). */
  types: MediaType[];
  /** Voice notes and audio go through the transcription model (default false). */
  transcribe: boolean;
  /** The transcription model (parsed default `openai/whisper-1`, key `OPENAI_API_KEY`). */
  transcriptionModel?: TranscriptionModelConfig;
  /** The transcript is quoted above the reply (parsed default true). */
  showTranscript?: boolean;
  /** What an attachment the entry does not take in gets: one short answer per message, or nothing. */
  unsupported: "reply" | "ignore";
}

/**
 * The media policy an entry runs with: its block, or (no block) nothing taken in and what its
 * adapter says an attachment gets (`unsupportedMedia`, filled in at validation: WhatsApp keeps the
 * spec's caption-only row, `ignore`), by default `reply`.
 */
export function mediaPolicyOf(entry: {
  media?: MediaConfig;
  unsupportedMedia?: "reply" | "ignore";
}): MediaConfig {
  if (entry.media) return entry.media;
  return {
    maxBytes: 0,
    types: [],
    transcribe: false,
    transcriptionModel: DEFAULT_TRANSCRIPTION_MODEL,
    showTranscript: true,
    unsupported: entry.unsupportedMedia ?? "reply",
  };
}
