// The providers an agent's `model: "provider/model"` string may name, and what each needs.
// Key variables are the ones each AI SDK provider package reads by default (its loadApiKey
// `environmentVariableName`), as documented at https://ai-sdk.dev/providers/ai-sdk-providers/<provider>.

export interface ModelProviderInfo {
  /** The AI SDK provider package that builds its models. */
  package: string;
  /** Shipped with agentsvc (a dependency of @agentsvc/agent-core): nothing to install. */
  bundled: boolean;
  /**
   * Variables that must be set for a model of this provider (all of them), unless `apiKeyEnvVar`
   * names the key's variable instead of the first. Empty: keyless (a local server).
   */
  keyVars: string[];
  /** Where an OpenAI-compatible provider is reached unless `baseURL` says otherwise. */
  baseURL?: string;
}

export const MODEL_PROVIDERS = {
  openai: { package: "@ai-sdk/openai", bundled: true, keyVars: ["OPENAI_API_KEY"] },
  anthropic: { package: "@ai-sdk/anthropic", bundled: true, keyVars: ["ANTHROPIC_API_KEY"] },
  google: { package: "@ai-sdk/google", bundled: false, keyVars: ["GOOGLE_GENERATIVE_AI_API_KEY"] },
  // The resource name builds the endpoint URL (https://<name>.openai.azure.com); a baseURL replaces it.
  azure: { package: "@ai-sdk/azure", bundled: false, keyVars: ["AZURE_API_KEY", "AZURE_RESOURCE_NAME"] },
  // SigV4 credentials, or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK instead of the two keys.
  "amazon-bedrock": {
    package: "@ai-sdk/amazon-bedrock",
    bundled: false,
    keyVars: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"],
  },
  mistral: { package: "@ai-sdk/mistral", bundled: false, keyVars: ["MISTRAL_API_KEY"] },
  groq: { package: "@ai-sdk/groq", bundled: false, keyVars: ["GROQ_API_KEY"] },
  xai: { package: "@ai-sdk/xai", bundled: false, keyVars: ["XAI_API_KEY"] },
  deepseek: { package: "@ai-sdk/deepseek", bundled: false, keyVars: ["DEEPSEEK_API_KEY"] },
  // OpenRouter and Ollama speak OpenAI's Chat Completions (https://openrouter.ai/docs/quickstart,
  // https://github.com/ollama/ollama/blob/main/docs/openai.md).
  openrouter: {
    package: "@ai-sdk/openai-compatible",
    bundled: true,
    keyVars: ["OPENROUTER_API_KEY"],
    baseURL: "https://openrouter.ai/api/v1",
  },
  ollama: {
    package: "@ai-sdk/openai-compatible",
    bundled: true,
    keyVars: [],
    baseURL: "http://127.0.0.1:11434/v1",
  },
  // Any other Chat Completions server: `{ model: "openai-compatible/<id>", baseURL }`.
  "openai-compatible": { package: "@ai-sdk/openai-compatible", bundled: true, keyVars: [] },
} as const satisfies Record<string, ModelProviderInfo>;

export type ModelProviderName = keyof typeof MODEL_PROVIDERS;

/** The Bedrock API key variable that stands in for the two SigV4 key variables. */
export const BEDROCK_API_KEY_VAR = "AWS_BEARER_TOKEN_BEDROCK";

/** `"google/gemini-2.5-flash"` -> provider and model id (split at the first `/`), or undefined. */
export function parseModelString(text: string): { provider: ModelProviderName; modelId: string } | undefined {
  const slash = text.indexOf("/");
  if (slash <= 0 || slash === text.length - 1) return undefined;
  const provider = text.slice(0, slash);
  if (!Object.hasOwn(MODEL_PROVIDERS, provider)) return undefined;
  return { provider: provider as ModelProviderName, modelId: text.slice(slash + 1) };
}

/** Looks like an AI SDK LanguageModel built in the agent file (any specification version). */
export function isLanguageModelInstance(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { specificationVersion?: unknown }).specificationVersion === "string" &&
    typeof (value as { doStream?: unknown }).doStream === "function"
  );
}

/** Where an agent's model (any form but an instance) goes: provider, model id, key variable, base URL. */
export interface ModelTarget {
  provider: string;
  modelId: string;
  apiKeyEnvVar?: string;
  baseURL?: string;
}

/** The target of a model spec object, `"provider/model"` string or `{ model: "provider/model" }`; undefined for an instance or nonsense. */
export function modelTarget(model: unknown): ModelTarget | undefined {
  if (typeof model === "string") {
    const parsed = parseModelString(model);
    return parsed && { provider: parsed.provider, modelId: parsed.modelId };
  }
  if (typeof model !== "object" || model === null || isLanguageModelInstance(model)) return undefined;
  const m = model as { provider?: unknown; model?: unknown; apiKeyEnvVar?: unknown; baseURL?: unknown };
  let target: ModelTarget | undefined;
  if (typeof m.provider === "string")
    target = { provider: m.provider, modelId: typeof m.model === "string" ? m.model : "" };
  else if (typeof m.model === "string") {
    const parsed = parseModelString(m.model);
    target = parsed && { provider: parsed.provider, modelId: parsed.modelId };
  }
  if (!target) return undefined;
  if (typeof m.apiKeyEnvVar === "string") target.apiKeyEnvVar = m.apiKeyEnvVar;
  if (typeof m.baseURL === "string") target.baseURL = m.baseURL;
  return target;
}

/**
 * The variables a model needs set at start-up (none for demo, ollama, a keyless
 * openai-compatible server or an instance). `apiKeyEnvVar` replaces the provider's key variable.
 * Bedrock takes either the SigV4 key pair or a Bedrock API key, with AWS_REGION either way.
 */
export function modelKeyVars(model: unknown, env: Record<string, string | undefined> = {}): string[] {
  const target = modelTarget(model);
  if (!target) return [];
  const info = (MODEL_PROVIDERS as Record<string, ModelProviderInfo>)[target.provider];
  if (!info) return [];
  if (target.provider === "amazon-bedrock") {
    if (target.apiKeyEnvVar) return [target.apiKeyEnvVar, "AWS_REGION"];
    return env[BEDROCK_API_KEY_VAR] ? [BEDROCK_API_KEY_VAR, "AWS_REGION"] : [...info.keyVars];
  }
  if (target.provider === "azure" && target.baseURL) return [target.apiKeyEnvVar ?? "AZURE_API_KEY"];
  const [first, ...rest] = info.keyVars;
  if (target.apiKeyEnvVar) return [target.apiKeyEnvVar, ...rest];
  return first ? [first, ...rest] : [];
}

/** An agent's model and its fallbacks, each with its key path (`model`, `model.fallbacks[0]`, ...). */
export function modelsOf(model: unknown): [path: string, model: unknown][] {
  const out: [string, unknown][] = [["model", model]];
  const fallbacks = (model as { fallbacks?: unknown } | undefined)?.fallbacks;
  if (Array.isArray(fallbacks))
    for (const [i, f] of fallbacks.entries()) out.push([`model.fallbacks[${i}]`, f]);
  return out;
}
