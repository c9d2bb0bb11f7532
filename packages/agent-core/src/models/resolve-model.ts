import type { LanguageModelV4 } from "@ai-sdk/provider";
import {
  checkAgentModel,
  isLanguageModelInstance,
  MODEL_PROVIDERS,
  type ModelProviderName,
  modelKeyVars,
  modelTarget,
} from "@agentsvc/config-schema/models";
import type { AgentModel, ModelSpec } from "../define.js";
import { AgentsvcError } from "../errors.js";
import { specProviderOptions } from "./call-options.js";
import { createDemoModel } from "./demo-model.js";
import type { LoadProviderOptions } from "./provider-package.js";
import { buildProviderModel, providerModule } from "./providers.js";
import type { ResolvedModel } from "./resolved-model.js";
import { type ModelSettings, mergeProviderOptions } from "./settings.js";

export interface CreateModelOptions extends LoadProviderOptions {
  /** Where API keys are read from. Default `process.env`, read now (at start-up), never at build. */
  env?: Record<string, string | undefined>;
  /** Custom fetch for HTTP providers (proxies, tests). */
  fetch?: typeof globalThis.fetch;
}

/**
 * An agent's model, whatever its form, as the run loop uses it: the language model (its provider
 * package loaded now), its settings and its fallbacks. Throws AgentsvcError `invalid_model`,
 * `missing_api_key` or `provider_not_installed`, so a bad model stops start-up, not a turn.
 * `primary` replaces the agent's own language model (tests, a metered wrapper), keeping the rest.
 */
export function resolveModel(
  input: AgentModel,
  options: CreateModelOptions & { primary?: LanguageModelV4 } = {},
): ResolvedModel {
  const problem = checkAgentModel(input)[0];
  if (problem) throw new AgentsvcError("invalid_model", `${problem.path}: ${problem.message}`, 500);
  const fallbacks = (input as { fallbacks?: AgentModel[] }).fallbacks ?? [];
  return {
    ...resolveOne(input, options, options.primary),
    fallbacks: fallbacks.map((f, i) => ({
      ...withPath(`model.fallbacks[${i}]`, () => resolveOne(f, options)),
      fallbacks: [],
    })),
  };
}

/** Only the language model of a model (summaries, tools that call a model). */
export function createModel(input: AgentModel, options: CreateModelOptions = {}): LanguageModelV4 {
  return resolveModel(input, options).model;
}

function resolveOne(
  input: AgentModel,
  options: CreateModelOptions,
  primary?: LanguageModelV4,
): Omit<ResolvedModel, "fallbacks"> {
  const env = options.env ?? process.env;
  // An instance built in the agent file: used as it is (v3 streams the same parts the loop reads).
  if (isLanguageModelInstance(input)) {
    const model = primary ?? (input as LanguageModelV4);
    return { model, provider: providerName(model), settings: {} };
  }
  const object = typeof input === "string" ? { model: input } : (input as Record<string, unknown>);
  const settings = { ...(object.settings as ModelSettings | undefined) };
  if (isLanguageModelInstance(object.model)) {
    const model = primary ?? (object.model as LanguageModelV4);
    return { model, provider: providerName(model), settings };
  }
  if (object.provider === "demo") {
    const spec = object as unknown as Extract<ModelSpec, { provider: "demo" }>;
    const model = primary ?? createDemoModel({ script: spec.script, tokenDelayMs: spec.tokenDelayMs });
    return { model, provider: "demo", settings };
  }
  const target = modelTarget(input);
  if (!target)
    throw new AgentsvcError("invalid_model", "model: not a model agentsvc knows how to build", 500);
  const provider = target.provider as ModelProviderName;
  // A thinking budget goes out as Anthropic provider options on every call.
  const thinking = specProviderOptions(input as ModelSpec);
  if (thinking) settings.providerOptions = mergeProviderOptions(thinking, settings.providerOptions);
  // The package first: installing it is the first thing to do, setting its key the second.
  const mod = primary ? undefined : providerModule(provider, target.modelId, options);
  const vars = modelKeyVars(input, env);
  // A given language model brings its own key.
  for (const name of primary ? [] : vars) {
    if (env[name]) continue;
    throw new AgentsvcError(
      "missing_api_key",
      `model.apiKeyEnvVar: environment variable ${name} is not set (the ${provider} model "${target.modelId}" needs it)`,
      500,
    );
  }
  const keyVar = keyVariableOf(provider, target.apiKeyEnvVar, vars);
  const model =
    primary ??
    buildProviderModel(provider, mod as Record<string, unknown>, {
      modelId: target.modelId,
      apiKey: keyVar ? env[keyVar] : undefined,
      baseURL: target.baseURL,
      name: typeof object.name === "string" ? object.name : undefined,
      env,
      fetch: options.fetch,
    });
  const resolved: Omit<ResolvedModel, "fallbacks"> = { model, provider, settings };
  if (keyVar) resolved.apiKeyEnvVar = keyVar;
  return resolved;
}

/** The variable the API key itself is in (Bedrock's SigV4 pair is read by its builder). */
function keyVariableOf(provider: ModelProviderName, given: string | undefined, vars: string[]) {
  if (given) return given;
  if (provider === "amazon-bedrock") return undefined;
  return MODEL_PROVIDERS[provider].keyVars.length > 0 ? vars[0] : undefined;
}

/** An instance's provider as spans name it: `openai.chat` -> `openai`, `google.generative-ai` -> `google`. */
function providerName(model: LanguageModelV4): string {
  return model.provider.split(".")[0] || model.provider;
}

function withPath<T>(path: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof AgentsvcError)
      throw new AgentsvcError(error.code, error.message.replace(/^model(?=\.)/, path), error.status);
    throw error;
  }
}
