import { describe, expect, it } from "vitest";
import { missingModelKeys } from "../src/index.js";
import { expectError, loadErrors, loadOk } from "./helpers.js";

const withModel = (model: string) => ({
  "agents/a.ts": `export default { kind: "agent", name: "a", model: ${model} };\n`,
});

describe("an agent's model forms", () => {
  it('accepts a "provider/model" string for every provider the AI SDK publishes', async () => {
    for (const provider of [
      "openai",
      "anthropic",
      "google",
      "azure",
      "amazon-bedrock",
      "mistral",
      "groq",
      "xai",
      "deepseek",
      "openrouter",
      "ollama",
    ]) {
      const p = await loadOk(withModel(`"${provider}/some-model"`));
      expect((p.rootAgent.definition as { model: unknown }).model).toBe(`${provider}/some-model`);
    }
  });

  it("accepts { model, apiKeyEnvVar, baseURL, settings, fallbacks } with every setting", async () => {
    await loadOk(
      withModel(`{
        model: "openrouter/anthropic/claude-sonnet-4.5",
        apiKeyEnvVar: "MY_ROUTER_KEY",
        baseURL: "https://router.example/v1",
        settings: {
          maxOutputTokens: 1024, temperature: 0.3, topP: 0.9, stopSequences: ["END"],
          headers: { "x-team": "blue" }, providerOptions: { openrouter: { reasoning: { effort: "low" } } },
          maxRetries: 4, timeoutMs: 30000,
        },
        fallbacks: ["openai/gpt-4o-mini", { provider: "anthropic", model: "claude-haiku-4-5", settings: { temperature: 0 } }],
      }`),
    );
  });

  it("accepts settings and fallbacks on a spec object", async () => {
    await loadOk(
      withModel(
        `{ provider: "openai", model: "gpt-4o", settings: { maxOutputTokens: 200 }, fallbacks: ["groq/llama-3.3-70b-versatile"] }`,
      ),
    );
  });

  it("accepts an AI SDK LanguageModel instance (specificationVersion v4 or v3)", async () => {
    for (const version of ["v4", "v3"]) {
      await loadOk(
        withModel(
          `{ specificationVersion: "${version}", provider: "custom", modelId: "m", supportedUrls: {}, doGenerate() {}, doStream() {} }`,
        ),
      );
    }
  });

  it("rejects an instance of an older interface, naming the versions it takes", async () => {
    const errors = await loadErrors(
      withModel(`{ specificationVersion: "v2", provider: "old", modelId: "m", doStream() {} }`),
    );
    expectError(errors, "agents/a.ts", "model", /specificationVersion v3 or v4/);
  });

  it("rejects a string without a known provider, listing the providers", async () => {
    for (const bad of ["gpt-4o", "gemini/x", "openai/"]) {
      const errors = await loadErrors(withModel(JSON.stringify(bad)));
      expectError(
        errors,
        "agents/a.ts",
        "model",
        new RegExp(
          `expected "provider/model" with a provider among openai, anthropic, google, .*ollama.* \\(got ${JSON.stringify(bad)}\\)`,
        ),
      );
    }
  });

  it("rejects a model that is neither string, object nor instance", async () => {
    expectError(
      await loadErrors(withModel("42")),
      "agents/a.ts",
      "model",
      /expected "provider\/model", a model spec .* \(got 42\)/,
    );
  });

  it('refuses a bare "openai-compatible/..." string, which names no server', async () => {
    expectError(
      await loadErrors(withModel(`"openai-compatible/qwen"`)),
      "agents/a.ts",
      "model",
      /expected \{ model: "openai-compatible\/<id>", baseURL: .* \(got "openai-compatible\/qwen"\)/,
    );
  });

  it('requires baseURL for an "openai-compatible/..." model', async () => {
    expectError(
      await loadErrors(withModel(`{ model: "openai-compatible/qwen" }`)),
      "agents/a.ts",
      "model.baseURL",
      /is required for an "openai-compatible\/\.\.\." model/,
    );
  });
});

describe("model settings, each error with file and key", () => {
  const cases: [setting: string, path: string, message: string][] = [
    [`temperature: "hot"`, "temperature", 'expected a number between 0 and 2 (got "hot")'],
    ["temperature: 2.5", "temperature", "expected a number between 0 and 2 (got 2.5)"],
    ["topP: 1.5", "topP", "expected a number between 0 and 1 (got 1.5)"],
    ["maxOutputTokens: 0", "maxOutputTokens", "expected an integer between 1 and 10000000 (got 0)"],
    ["maxOutputTokens: 10.5", "maxOutputTokens", "expected an integer between 1 and 10000000 (got 10.5)"],
    [`stopSequences: "END"`, "stopSequences", 'expected a list of strings (got "END")'],
    [`stopSequences: [""]`, "stopSequences[0]", 'expected a non-empty string (got "")'],
    [`headers: ["x"]`, "headers", "expected a mapping of header names to strings (got a list of 1)"],
    ["headers: { a: 1 }", "headers.a", "expected a string header value (got 1)"],
    [`providerOptions: "x"`, "providerOptions", "expected a mapping of provider names to their options"],
    [
      "providerOptions: { openai: 1 }",
      "providerOptions.openai",
      "expected a mapping of options for this provider (got 1)",
    ],
    ["maxRetries: -1", "maxRetries", "expected an integer between 0 and 10 (got -1)"],
    ["maxRetries: 11", "maxRetries", "expected an integer between 0 and 10 (got 11)"],
    ["timeoutMs: 0", "timeoutMs", "expected an integer between 1 and 3600000 (milliseconds) (got 0)"],
    ['fileInputs: ["video"]', "fileInputs[0]", 'must be one of image, pdf, audio (got "video")'],
    [
      "temprature: 1",
      "temprature",
      'unknown key in model settings (known keys: maxOutputTokens, temperature, topP, stopSequences, headers, providerOptions, maxRetries, timeoutMs, fileInputs); did you mean "temperature"?',
    ],
  ];
  for (const [setting, path, message] of cases) {
    it(`${path}: ${message}`, async () => {
      const errors = await loadErrors(withModel(`{ model: "openai/gpt-4o", settings: { ${setting} } }`));
      const hit = expectError(errors, "agents/a.ts", `model.settings.${path}`, /./);
      expect(`${hit.file}: ${hit.path}: ${hit.message}`).toContain(
        `agents/a.ts: model.settings.${path}: ${message}`,
      );
    });
  }

  it("names a bad setting of a fallback by its index", async () => {
    const errors = await loadErrors(
      withModel(
        `{ model: "openai/gpt-4o", fallbacks: ["anthropic/claude-haiku-4-5", { model: "google/gemini-2.5-flash", settings: { topP: 7 } }] }`,
      ),
    );
    expectError(
      errors,
      "agents/a.ts",
      "model.fallbacks[1].settings.topP",
      /expected a number between 0 and 1 \(got 7\)/,
    );
  });

  it("rejects a fallback that is not a model, and fallbacks of a fallback", async () => {
    const errors = await loadErrors(
      withModel(
        `{ model: "openai/gpt-4o", fallbacks: ["gpt-4o-mini", { model: "openai/gpt-4o-mini", fallbacks: [] }] }`,
      ),
    );
    expectError(errors, "agents/a.ts", "model.fallbacks[0]", /expected "provider\/model"/);
    expectError(errors, "agents/a.ts", "model.fallbacks[1].fallbacks", /unknown key/);
  });

  it("rejects fallbacks that are not a list", async () => {
    const errors = await loadErrors(withModel(`{ model: "openai/gpt-4o", fallbacks: "openai/gpt-4o-mini" }`));
    expectError(errors, "agents/a.ts", "model.fallbacks", /expected a list of models/);
  });
});

describe("model key variables check warns about", () => {
  const keysFor = async (model: string, env: Record<string, string> = {}) =>
    missingModelKeys(await loadOk(withModel(model)), env).map((w) => `${w.path}: ${w.message.split(":")[0]}`);

  it("each provider's documented variable, or the apiKeyEnvVar given", async () => {
    expect(await keysFor(`"google/gemini-2.5-flash"`)).toEqual([
      "model.apiKeyEnvVar: environment variable GOOGLE_GENERATIVE_AI_API_KEY is not set",
    ]);
    expect(await keysFor(`{ model: "mistral/mistral-large-latest", apiKeyEnvVar: "TEAM_MISTRAL" }`)).toEqual([
      "model.apiKeyEnvVar: environment variable TEAM_MISTRAL is not set",
    ]);
    for (const [provider, name] of [
      ["openai", "OPENAI_API_KEY"],
      ["anthropic", "ANTHROPIC_API_KEY"],
      ["groq", "GROQ_API_KEY"],
      ["xai", "XAI_API_KEY"],
      ["deepseek", "DEEPSEEK_API_KEY"],
      ["openrouter", "OPENROUTER_API_KEY"],
    ]) {
      expect(await keysFor(`"${provider}/m"`)).toEqual([
        `model.apiKeyEnvVar: environment variable ${name} is not set`,
      ]);
    }
    expect(await keysFor(`"ollama/llama3.2"`)).toEqual([]);
  });

  it("Azure's key and resource name; Bedrock's region and key pair, or its API key", async () => {
    expect(await keysFor(`"azure/my-deployment"`)).toEqual([
      "model.apiKeyEnvVar: environment variable AZURE_API_KEY is not set",
      "model.apiKeyEnvVar: environment variable AZURE_RESOURCE_NAME is not set",
    ]);
    expect(
      await keysFor(`"amazon-bedrock/anthropic.claude-sonnet-4-5"`, { AWS_REGION: "eu-west-1" }),
    ).toEqual([
      "model.apiKeyEnvVar: environment variable AWS_ACCESS_KEY_ID is not set",
      "model.apiKeyEnvVar: environment variable AWS_SECRET_ACCESS_KEY is not set",
    ]);
    expect(
      await keysFor(`"amazon-bedrock/anthropic.claude-sonnet-4-5"`, {
        AWS_BEARER_TOKEN_BEDROCK: "k",
        AWS_REGION: "us-east-1",
      }),
    ).toEqual([]);
  });

  it("a fallback's variables under its own path", async () => {
    expect(
      await keysFor(`{ model: "openai/gpt-4o", fallbacks: ["xai/grok-4"] }`, { OPENAI_API_KEY: "k" }),
    ).toEqual(["model.fallbacks[0].apiKeyEnvVar: environment variable XAI_API_KEY is not set"]);
  });
});
