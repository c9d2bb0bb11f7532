import type { SharedV4ProviderOptions } from "@ai-sdk/provider";
import type { FileInput } from "../model-inputs.js";

/**
 * Per-model call settings. The first six go into every provider request; `maxRetries` and
 * `timeoutMs` are carried for the model-call wrapper (retries and the call timeout).
 */
export interface ModelSettings {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  headers?: Record<string, string>;
  providerOptions?: SharedV4ProviderOptions;
  maxRetries?: number;
  timeoutMs?: number;
  /** File parts the model takes (`image`, `pdf`, `audio`); default from agent-core's table (model-inputs.ts). */
  fileInputs?: FileInput[];
}

/** The part of the settings that is a doStream argument. */
export type CallSettings = Omit<ModelSettings, "maxRetries" | "timeoutMs" | "fileInputs">;

/** Merges provider options per provider key, the later object's fields winning. */
export function mergeProviderOptions(
  ...all: (SharedV4ProviderOptions | undefined)[]
): SharedV4ProviderOptions | undefined {
  let out: SharedV4ProviderOptions | undefined;
  for (const options of all) {
    if (!options) continue;
    out ??= {};
    for (const [provider, values] of Object.entries(options)) out[provider] = { ...out[provider], ...values };
  }
  return out;
}

/** The doStream arguments of the settings (absent ones left out, so a provider's defaults hold). */
export function callSettings(settings: ModelSettings | undefined): CallSettings {
  const out: CallSettings = {};
  if (!settings) return out;
  if (settings.maxOutputTokens !== undefined) out.maxOutputTokens = settings.maxOutputTokens;
  if (settings.temperature !== undefined) out.temperature = settings.temperature;
  if (settings.topP !== undefined) out.topP = settings.topP;
  if (settings.stopSequences !== undefined) out.stopSequences = settings.stopSequences;
  if (settings.headers !== undefined) out.headers = settings.headers;
  if (settings.providerOptions !== undefined) out.providerOptions = settings.providerOptions;
  return out;
}
