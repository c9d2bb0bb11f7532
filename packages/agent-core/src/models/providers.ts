// How each provider's package builds a model. Constructor options per provider package's docs
// (https://ai-sdk.dev/providers/ai-sdk-providers/<provider>); keys are passed explicitly, read from
// the environment agentsvc was given, so a test or a second agent never reads process.env behind it.
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { BEDROCK_API_KEY_VAR, MODEL_PROVIDERS, type ModelProviderName } from "@agentsvc/config-schema/models";
import { type LoadProviderOptions, loadProviderPackage } from "./provider-package.js";

export interface BuildArgs {
  modelId: string;
  apiKey?: string;
  baseURL?: string;
  name?: string;
  env: Record<string, string | undefined>;
  fetch?: typeof globalThis.fetch;
}

type Factory = (settings: Record<string, unknown>) => Record<string, (id: string) => LanguageModelV4>;

const chat = (create: string) => (mod: Record<string, unknown>, a: BuildArgs) =>
  (mod[create] as Factory)({ apiKey: a.apiKey, baseURL: a.baseURL, fetch: a.fetch }).languageModel!(
    a.modelId,
  );

const compatible = (mod: Record<string, unknown>, a: BuildArgs, name: string) =>
  (mod.createOpenAICompatible as Factory)({
    name: a.name ?? name,
    baseURL: a.baseURL,
    apiKey: a.apiKey,
    fetch: a.fetch,
    includeUsage: true,
  }).chatModel!(a.modelId);

const BUILD: Record<ModelProviderName, (mod: Record<string, unknown>, a: BuildArgs) => LanguageModelV4> = {
  // Chat Completions: stateless, and its reasoning stays replayable.
  openai: (mod, a) =>
    (mod.createOpenAI as Factory)({ apiKey: a.apiKey, baseURL: a.baseURL, fetch: a.fetch }).chat!(a.modelId),
  anthropic: chat("createAnthropic"),
  google: (mod, a) =>
    ((mod.createGoogle ?? mod.createGoogleGenerativeAI) as Factory)({
      apiKey: a.apiKey,
      baseURL: a.baseURL,
      fetch: a.fetch,
    }).languageModel!(a.modelId),
  // The model id is the deployment name; Chat Completions as for openai.
  azure: (mod, a) =>
    (mod.createAzure as Factory)({
      apiKey: a.apiKey,
      baseURL: a.baseURL,
      resourceName: a.baseURL ? undefined : a.env.AZURE_RESOURCE_NAME,
      fetch: a.fetch,
    }).chat!(a.modelId),
  "amazon-bedrock": (mod, a) => {
    const bearer = a.apiKey ?? a.env[BEDROCK_API_KEY_VAR];
    return (mod.createAmazonBedrock as Factory)({
      region: a.env.AWS_REGION,
      baseURL: a.baseURL,
      fetch: a.fetch,
      ...(bearer
        ? { apiKey: bearer }
        : {
            accessKeyId: a.env.AWS_ACCESS_KEY_ID,
            secretAccessKey: a.env.AWS_SECRET_ACCESS_KEY,
            sessionToken: a.env.AWS_SESSION_TOKEN,
          }),
    }).languageModel!(a.modelId);
  },
  mistral: chat("createMistral"),
  groq: chat("createGroq"),
  xai: chat("createXai"),
  deepseek: chat("createDeepSeek"),
  openrouter: (mod, a) => compatible(mod, a, "openrouter"),
  ollama: (mod, a) => compatible(mod, a, "ollama"),
  "openai-compatible": (mod, a) => compatible(mod, a, "openai-compatible"),
};

/** The provider's package, loaded now (its first use): a missing one is named before any key is. */
export function providerModule(
  provider: ModelProviderName,
  modelId: string,
  options: LoadProviderOptions,
): Record<string, unknown> {
  const info = MODEL_PROVIDERS[provider];
  return loadProviderPackage(info.package, info.bundled, `${provider}/${modelId}`, options);
}

/** Builds `provider/modelId` with the provider's loaded package. */
export function buildProviderModel(
  provider: ModelProviderName,
  mod: Record<string, unknown>,
  args: BuildArgs,
): LanguageModelV4 {
  const info = MODEL_PROVIDERS[provider];
  const baseURL = args.baseURL ?? ("baseURL" in info ? info.baseURL : undefined);
  return BUILD[provider](mod, { ...args, baseURL });
}
