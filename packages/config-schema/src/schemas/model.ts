// The `model` of an agent: a spec object, a "provider/model" string, { model: "provider/model", ... },
// or an AI SDK LanguageModel instance; each may carry call `settings` and (at the top) `fallbacks`.
import * as v from "valibot";
import { isLanguageModelInstance, MODEL_PROVIDERS, parseModelString } from "../model-providers.js";
import { type BuildError, IssueSink } from "../issues.js";
import { closed, envVarName, httpUrl, integerIn, nonEmptyString } from "./common.js";

const FILE_INPUTS = ["image", "pdf", "audio"] as const;
const SPEC_PROVIDERS = ["demo", "openai", "anthropic", "openai-compatible"] as const;
const STRING_PROVIDERS = Object.keys(MODEL_PROVIDERS).join(", ");
/** Interface versions whose stream parts the run loop reads (AI SDK 6 providers are v3, 7 are v4). */
const INSTANCE_VERSIONS = ["v3", "v4"];

const modelName = nonEmptyString("model name");
const apiKey = v.optional(envVarName);
const optionalUrl = v.optional(httpUrl("provider base URL"));

const numberIn = (min: number, max: number) =>
  v.pipe(
    v.number(`expected a number between ${min} and ${max}`),
    v.check((n) => Number.isFinite(n) && n >= min && n <= max, `expected a number between ${min} and ${max}`),
  );
const wholeIn = (min: number, max: number, unit = "") =>
  v.pipe(
    v.number(`expected an integer between ${min} and ${max}${unit}`),
    v.check(
      (n) => Number.isInteger(n) && n >= min && n <= max,
      `expected an integer between ${min} and ${max}${unit}`,
    ),
  );
const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** A mapping (not a list) of string keys to `value`s. */
const mapping = <T extends v.GenericSchema>(value: T, message: string) =>
  v.pipe(v.custom<Record<string, unknown>>(isPlainObject, message), v.record(v.string(), value, message));

/** Per-model call settings (ranges as the AI SDK documents its call settings: https://ai-sdk.dev/docs/ai-sdk-core/settings). */
export const modelSettingsSchema = closed(
  {
    maxOutputTokens: v.optional(wholeIn(1, 10_000_000)),
    temperature: v.optional(numberIn(0, 2)),
    topP: v.optional(numberIn(0, 1)),
    stopSequences: v.optional(
      v.array(
        v.pipe(v.string("expected a non-empty string"), v.minLength(1, "expected a non-empty string")),
        "expected a list of strings",
      ),
    ),
    headers: v.optional(
      mapping(v.string("expected a string header value"), "expected a mapping of header names to strings"),
    ),
    providerOptions: v.optional(
      mapping(
        v.custom(isPlainObject, "expected a mapping of options for this provider"),
        "expected a mapping of provider names to their options, e.g. { anthropic: { ... } }",
      ),
    ),
    maxRetries: v.optional(wholeIn(0, 10)),
    timeoutMs: v.optional(wholeIn(1, 3_600_000, " (milliseconds)")),
    // Which files the model takes as prompt parts, overriding agent-core's table (issue #46).
    fileInputs: v.optional(
      v.array(
        v.picklist(FILE_INPUTS, `must be one of ${FILE_INPUTS.join(", ")}`),
        `expected a list of ${FILE_INPUTS.join(", ")} (the files the model takes; [] for none)`,
      ),
    ),
  },
  "model settings",
  "expected a mapping of model settings",
);

const modelString = v.pipe(
  v.string(),
  v.check(
    (s) => parseModelString(s) !== undefined,
    `expected "provider/model" with a provider among ${STRING_PROVIDERS}`,
  ),
);

// An OpenAI-compatible server has no default address: the string alone cannot name it.
const bareString = v.pipe(
  modelString,
  v.check(
    (s) => !s.startsWith("openai-compatible/"),
    'expected { model: "openai-compatible/<id>", baseURL: "<the server\'s URL>" } (the string alone names no server)',
  ),
);

const instanceSchema = v.custom(
  (x) => INSTANCE_VERSIONS.includes(String((x as { specificationVersion?: unknown }).specificationVersion)),
  `expected an AI SDK LanguageModel of specificationVersion ${INSTANCE_VERSIONS.join(" or ")} (an @ai-sdk provider of AI SDK 6 or 7)`,
);

const refModel = v.lazy((input: unknown) => (isLanguageModelInstance(input) ? instanceSchema : modelString));

function specSchemas(extra: v.ObjectEntries) {
  return v.variant(
    "provider",
    [
      closed(
        {
          provider: v.literal("demo"),
          script: v.optional(v.array(v.unknown(), "must be a list")),
          tokenDelayMs: v.optional(integerIn(0, 60_000, "delay between demo tokens in ms")),
          ...extra,
        },
        "a demo model",
      ),
      closed(
        {
          provider: v.literal("openai"),
          model: modelName,
          apiKeyEnvVar: apiKey,
          baseURL: optionalUrl,
          ...extra,
        },
        "an openai model",
      ),
      closed(
        {
          provider: v.literal("anthropic"),
          model: modelName,
          apiKeyEnvVar: apiKey,
          baseURL: optionalUrl,
          // Extended thinking; Anthropic rejects budgets under 1024 tokens.
          thinkingBudgetTokens: v.optional(
            integerIn(1024, Number.MAX_SAFE_INTEGER, "extended-thinking token budget"),
          ),
          ...extra,
        },
        "an anthropic model",
      ),
      closed(
        {
          provider: v.literal("openai-compatible"),
          model: modelName,
          baseURL: httpUrl("provider base URL"),
          apiKeyEnvVar: apiKey,
          name: v.optional(nonEmptyString("provider name")),
          ...extra,
        },
        "an openai-compatible model",
      ),
    ],
    // The discriminator issue carries the provider value (or undefined when it is missing).
    (issue) =>
      typeof issue.input === "string" || issue.input === undefined
        ? `must be one of ${SPEC_PROVIDERS.join(", ")}`
        : 'must be a model spec such as { provider: "demo" }',
  );
}

function refSchema(extra: v.ObjectEntries, baseURL: typeof optionalUrl | ReturnType<typeof httpUrl>) {
  return closed(
    // An instance may be wrapped too, to give it settings and fallbacks.
    {
      model: refModel,
      apiKeyEnvVar: apiKey,
      baseURL,
      name: v.optional(nonEmptyString("provider name")),
      ...extra,
    },
    'a { model: "provider/model" } object',
    'is required for an "openai-compatible/..." model: the base URL of the server',
  );
}

/** One form of a model, picked by its shape so the error speaks to the form that was meant. */
function anyModel(extra: v.ObjectEntries) {
  const spec = specSchemas(extra);
  const ref = refSchema(extra, optionalUrl);
  // A server of our own has no default address.
  const compatibleRef = refSchema(extra, httpUrl("provider base URL"));
  return v.lazy((input: unknown) => {
    if (typeof input === "string") return bareString;
    if (isLanguageModelInstance(input)) return instanceSchema;
    if (isPlainObject(input) && !("provider" in input) && "model" in input)
      return String(input.model).startsWith("openai-compatible/") ? compatibleRef : ref;
    if (isPlainObject(input)) return spec;
    return v.custom(
      () => false,
      `expected "provider/model", a model spec such as { provider: "openai", model: "gpt-4o" }, or an AI SDK LanguageModel`,
    );
  });
}

const fallbackSchema = anyModel({ settings: v.optional(modelSettingsSchema) });

/** An agent's `model`; its fallbacks take every form but carry no fallbacks of their own. */
export const agentModelSchema = anyModel({
  settings: v.optional(modelSettingsSchema),
  fallbacks: v.optional(v.array(fallbackSchema, "expected a list of models")),
});

/** Every problem of an agent's `model` (paths start at `model`); empty when it is valid. */
export function checkAgentModel(model: unknown): BuildError[] {
  const r = v.safeParse(agentModelSchema, model);
  if (r.success) return [];
  const sink = new IssueSink();
  sink.fromValibot("", r.issues, "model");
  return sink.errors;
}
