// Voice notes and audio files as text (issue #46): an AI SDK transcription model (OpenAI's or
// Groq's Whisper, Azure's deployment of it) built from a "provider/model" string the way language
// models are, and the step of a turn that gives its user message's audio a transcript before the
// first model call, so memory keeps the transcript with the message.
import type { TranscriptionModelV4 } from "@ai-sdk/provider";
import { MODEL_PROVIDERS, type ModelProviderName, parseModelString } from "@agentsvc/config-schema/models";
import { AgentsvcError } from "./errors.js";
import type { AttachmentRef } from "./media.js";
import type { Message } from "./messages.js";
import type { CreateModelOptions } from "./models/resolve-model.js";
import { providerModule } from "./models/providers.js";
import type { RunOrigin } from "./run-store.js";

/** A transcription model: `"openai/whisper-1"`, `"groq/whisper-large-v3"`, or with its key and URL. */
export type TranscriptionModelRef = string | { model: string; apiKeyEnvVar?: string; baseURL?: string };

/** Providers whose AI SDK package has `.transcription(id)` (https://ai-sdk.dev/docs/ai-sdk-core/transcription). */
const TRANSCRIBING = ["openai", "groq", "azure"] as const;

export interface Transcriber {
  /** `provider/model`, stored beside each transcript. */
  readonly model: string;
  transcribe(audio: Uint8Array, mediaType: string, signal?: AbortSignal): Promise<string>;
}

/** Builds the transcription model now (its package loaded, its key read), or throws AgentsvcError naming the fix. */
export function createTranscriber(ref: TranscriptionModelRef, options: CreateModelOptions = {}): Transcriber {
  const spec = typeof ref === "string" ? { model: ref } : ref;
  const target = parseModelString(spec.model);
  const provider = target?.provider as ModelProviderName | undefined;
  if (!target || !provider || !(TRANSCRIBING as readonly string[]).includes(provider))
    throw new AgentsvcError(
      "invalid_model",
      `media.transcriptionModel: expected "openai/<model>", "groq/<model>" or "azure/<deployment>" (got "${spec.model}")`,
      500,
    );
  const env = options.env ?? process.env;
  const keyVar = spec.apiKeyEnvVar ?? MODEL_PROVIDERS[provider].keyVars[0];
  const apiKey = keyVar ? env[keyVar] : undefined;
  if (keyVar && !apiKey)
    throw new AgentsvcError(
      "missing_api_key",
      `media.transcriptionModel: environment variable ${keyVar} is not set (the ${provider} transcription model "${target.modelId}" needs it)`,
      500,
    );
  const mod = providerModule(provider, target.modelId, options);
  const create = (mod.createOpenAI ?? mod.createGroq ?? mod.createAzure) as (
    settings: Record<string, unknown>,
  ) => { transcription(id: string): TranscriptionModelV4 };
  const model = create({
    apiKey,
    baseURL: spec.baseURL,
    fetch: options.fetch,
    ...(provider === "azure" && !spec.baseURL ? { resourceName: env.AZURE_RESOURCE_NAME } : {}),
  }).transcription(target.modelId);
  return {
    model: `${provider}/${target.modelId}`,
    async transcribe(audio, mediaType, signal) {
      const result = await model.doGenerate({ audio, mediaType, ...(signal ? { abortSignal: signal } : {}) });
      return result.text.trim();
    },
  };
}

/** A stored audio file without a transcript yet. */
type StoredAudio = Extract<AttachmentRef, { blob: string }>;

/**
 * What the RunManager asks for each stored audio file of a new turn's user message: its
 * transcript, or undefined (the entry does not transcribe). The server's reads the blob, calls
 * the transcription model and keeps the text beside the blob.
 */
export type TranscribeAttachment = (
  file: StoredAudio,
  origin: RunOrigin | undefined,
  signal: AbortSignal,
) => Promise<string | undefined>;

const needsTranscript = (ref: AttachmentRef): ref is StoredAudio =>
  "blob" in ref && ref.kind === "audio" && ref.transcript === undefined;

/**
 * The turn's user messages with their audio transcribed (a failure leaves the file without one:
 * the model gets the note naming it, or the audio itself where it takes audio).
 */
export async function transcribeMessages(
  messages: Message[],
  transcribe: TranscribeAttachment,
  origin: RunOrigin | undefined,
  signal: AbortSignal,
): Promise<Message[]> {
  return Promise.all(
    messages.map(async (message) => {
      if (message.role !== "user" || !message.attachments?.some(needsTranscript)) return message;
      const attachments = await Promise.all(
        message.attachments.map(async (ref) => {
          if (!needsTranscript(ref)) return ref;
          try {
            const transcript = await transcribe(ref, origin, signal);
            return transcript === undefined ? ref : { ...ref, transcript };
          } catch {
            return ref; // the caller's transcriber logs its failures
          }
        }),
      );
      return { ...message, attachments };
    }),
  );
}
