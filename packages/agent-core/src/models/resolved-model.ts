import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelSettings } from "./settings.js";

/** An agent's model as the run loop uses it: the language model and what each call carries. */
export interface ResolvedModel {
  model: LanguageModelV4;
  /** The provider's name for spans and logs ("openai", "anthropic", "google", "demo", ...). */
  provider: string;
  settings: ModelSettings;
  /** Tried in order when this model's retries are exhausted (by the model-call wrapper). */
  fallbacks: ResolvedModel[];
  /** The environment variable its key came from, when one did (named in `auth` errors). */
  apiKeyEnvVar?: string;
}
