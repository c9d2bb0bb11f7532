// What a gateway entry takes in besides text (issue #46): pictures, voice notes, videos, files.
// Opt-in per entry; without a `media` block nothing is downloaded and an attachment gets one
// short answer (`reply`), except WhatsApp, whose spec row stays caption-only (`ignore`).
import * as v from "valibot";
import { bool, integerIn, strict } from "./common.js";

export const MEDIA_TYPES = ["image", "audio", "video", "document"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

const UNSUPPORTED = ["reply", "ignore"] as const;

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
  /** What an attachment the entry does not take in gets: one short answer per message, or nothing. */
  unsupported: "reply" | "ignore";
}

/**
 * The media policy an entry runs with: its block, or (no block) nothing taken in and `reply`
 * for an attachment, except WhatsApp, which keeps the spec's caption-only row (`ignore`).
 */
export function mediaPolicyOf(entry: { type?: string; media?: MediaConfig }): MediaConfig {
  if (entry.media) return entry.media;
  return {
    maxBytes: 0,
    types: [],
    transcribe: false,
    unsupported: entry.type === "whatsapp" ? "ignore" : "reply",
  };
}
