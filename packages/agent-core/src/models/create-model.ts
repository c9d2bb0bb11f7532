import { createRequire } from "node:module";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelSpec } from "../define.js";
import { AgentsvcError } from "../errors.js";
import { specProviderOptions } from "./call-options.js";
import { createDemoModel } from "./demo-model.js";

export interface CreateModelOptions {
  /** Where API keys are read from. Default `process.env`, read now (at start-up), never at build. */
  env?: Record<string, string | undefined>;
  /** Custom fetch for HTTP providers (proxies, tests). */
  fetch?: typeof globalThis.fetch;
}

// Each provider package loads on its first use (their CommonJS builds, so createModel stays
// synchronous): a project on the demo model never loads the AI SDK providers and their zod.
const require = createRequire(import.meta.url);
const openai = () => require("@ai-sdk/openai") as typeof import("@ai-sdk/openai");
const anthropic = () => require("@ai-sdk/anthropic") as typeof import("@ai-sdk/anthropic");
const compatible = () => require("@ai-sdk/openai-compatible") as typeof import("@ai-sdk/openai-compatible");

const DEFAULT_KEY_VARS = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY" } as const;

function readKey(
  env: Record<string, string | undefined>,
  spec: Exclude<ModelSpec, { provider: "demo" }>,
  required: boolean,
): string | undefined {
  const name =
    spec.apiKeyEnvVar ??
    (spec.provider === "openai-compatible" ? undefined : DEFAULT_KEY_VARS[spec.provider]);
  if (!name) return undefined;
  const value = env[name];
  if (value) return value;
  if (!required && !spec.apiKeyEnvVar) return undefined;
  throw new AgentsvcError(
    "missing_api_key",
    `model.apiKeyEnvVar: environment variable ${name} is not set (the ${spec.provider} model "${spec.model}" needs its API key there)`,
    500,
  );
}

/** Builds the LanguageModelV4 for a model spec. Chat Completions for `openai` (stateless, keeps reasoning replayable). */
export function createModel(spec: ModelSpec, options: CreateModelOptions = {}): LanguageModelV4 {
  const env = options.env ?? process.env;
  const fetch = options.fetch;
  switch (spec.provider) {
    case "demo":
      return createDemoModel({ script: spec.script, tokenDelayMs: spec.tokenDelayMs });
    case "openai": {
      const apiKey = readKey(env, spec, true);
      return openai().createOpenAI({ apiKey, baseURL: spec.baseURL, fetch }).chat(spec.model);
    }
    case "anthropic": {
      specProviderOptions(spec); // a bad thinking budget fails here, at start-up
      const apiKey = readKey(env, spec, true);
      return anthropic().createAnthropic({ apiKey, baseURL: spec.baseURL, fetch }).languageModel(spec.model);
    }
    case "openai-compatible": {
      if (!spec.baseURL) {
        throw new AgentsvcError(
          "invalid_model",
          `model.baseURL: required for provider "openai-compatible" (got nothing)`,
          500,
        );
      }
      const apiKey = readKey(env, spec, false);
      return compatible()
        .createOpenAICompatible({
          name: spec.name ?? "openai-compatible",
          baseURL: spec.baseURL,
          apiKey,
          fetch,
          includeUsage: true,
        })
        .chatModel(spec.model);
    }
    default: {
      const provider = (spec as { provider?: unknown }).provider;
      throw new AgentsvcError(
        "invalid_model",
        `model.provider: expected one of demo, openai, anthropic, openai-compatible (got ${JSON.stringify(provider)})`,
        500,
      );
    }
  }
}
