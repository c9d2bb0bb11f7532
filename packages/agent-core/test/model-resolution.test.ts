// "provider/model" strings: each provider's package builds the model (loaded from the project on
// first use), keys come from each provider's documented variables, and what is missing is named.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import {
  type AgentModel,
  createDemoModel,
  defineAgent,
  RunManager,
  resolveModel,
  WindowMemory,
} from "../src/index.js";

// agent-core's own folder stands in for a project with every optional provider installed
// (they are its devDependencies); a fresh temp folder for a project with none.
const project = join(import.meta.dirname, "..");
const emptyProject = () => mkdtempSync(join(tmpdir(), "agentsvc-models-"));

const ENV = {
  OPENAI_API_KEY: "k-openai",
  ANTHROPIC_API_KEY: "k-anthropic",
  GOOGLE_GENERATIVE_AI_API_KEY: "k-google",
  AZURE_API_KEY: "k-azure",
  AZURE_RESOURCE_NAME: "my-resource",
  AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "secret",
  AWS_REGION: "eu-west-1",
  MISTRAL_API_KEY: "k-mistral",
  GROQ_API_KEY: "k-groq",
  XAI_API_KEY: "k-xai",
  DEEPSEEK_API_KEY: "k-deepseek",
  OPENROUTER_API_KEY: "k-openrouter",
};

/** A fetch that records the request the provider built and answers 401 (nothing leaves the machine). */
function recordingFetch() {
  const seen: { url: string; headers: Headers }[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({
      url: String(input instanceof Request ? input.url : input),
      headers: new Headers(init?.headers),
    });
    return new Response(JSON.stringify({ error: { message: "recorded" } }), {
      status: 401,
      headers: { "content-type": "application/json" },
    });
  }) as typeof globalThis.fetch;
  return { seen, fetch };
}

const PROMPT = { prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }] };

// Where each provider sends a call and how it carries the key, as each provider documents its API:
// https://platform.openai.com/docs/api-reference/chat, https://docs.anthropic.com/en/api/messages,
// https://ai.google.dev/api/generate-content, https://learn.microsoft.com/azure/ai-foundry/openai/reference,
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html,
// https://docs.mistral.ai/api/, https://console.groq.com/docs/api-reference, https://docs.x.ai/docs/api-reference,
// https://api-docs.deepseek.com/, https://openrouter.ai/docs/api-reference/overview,
// https://github.com/ollama/ollama/blob/main/docs/openai.md
const TABLE: [
  provider: string,
  modelProvider: string,
  host: string,
  key: [header: string, value: RegExp] | null,
][] = [
  ["openai", "openai.chat", "api.openai.com", ["authorization", /^Bearer k-openai$/]],
  ["anthropic", "anthropic.messages", "api.anthropic.com", ["x-api-key", /^k-anthropic$/]],
  ["google", "google.generative-ai", "generativelanguage.googleapis.com", ["x-goog-api-key", /^k-google$/]],
  ["azure", "azure.chat", "my-resource.openai.azure.com", ["api-key", /^k-azure$/]],
  [
    "amazon-bedrock",
    "amazon-bedrock",
    "bedrock-runtime.eu-west-1.amazonaws.com",
    ["authorization", /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//],
  ],
  ["mistral", "mistral.chat", "api.mistral.ai", ["authorization", /^Bearer k-mistral$/]],
  ["groq", "groq.chat", "api.groq.com", ["authorization", /^Bearer k-groq$/]],
  ["xai", "xai.responses", "api.x.ai", ["authorization", /^Bearer k-xai$/]],
  ["deepseek", "deepseek.chat", "api.deepseek.com", ["authorization", /^Bearer k-deepseek$/]],
  ["openrouter", "openrouter.chat", "openrouter.ai", ["authorization", /^Bearer k-openrouter$/]],
  ["ollama", "ollama.chat", "127.0.0.1:11434", null],
];

describe('"provider/model" strings', () => {
  for (const [provider, modelProvider, host, key] of TABLE) {
    it(`${provider}: builds the provider's model and sends its key from the documented variable`, async () => {
      const { seen, fetch } = recordingFetch();
      const resolved = resolveModel(`${provider}/the-model` as AgentModel, {
        env: ENV,
        root: project,
        fetch,
      });
      expect(resolved.provider).toBe(provider);
      expect(resolved.model.specificationVersion).toBe("v4");
      expect(resolved.model.provider).toBe(modelProvider);
      expect(resolved.model.modelId).toBe("the-model");
      await expect(resolved.model.doStream(PROMPT)).rejects.toThrow();
      expect(seen).toHaveLength(1);
      expect(new URL(seen[0]!.url).host).toBe(host);
      if (key) expect(seen[0]!.headers.get(key[0])).toMatch(key[1]);
      else expect(seen[0]!.headers.get("authorization")).toBeNull();
    });
  }

  it("takes the key from apiKeyEnvVar instead, and a baseURL", async () => {
    const { seen, fetch } = recordingFetch();
    const resolved = resolveModel(
      {
        model: "mistral/mistral-small-latest",
        apiKeyEnvVar: "TEAM_MISTRAL",
        baseURL: "https://proxy.example/v1",
      },
      { env: { TEAM_MISTRAL: "k-team" }, root: project, fetch },
    );
    expect(resolved.apiKeyEnvVar).toBe("TEAM_MISTRAL");
    await expect(resolved.model.doStream(PROMPT)).rejects.toThrow();
    expect(seen[0]!.url).toMatch(/^https:\/\/proxy\.example\/v1\//);
    expect(seen[0]!.headers.get("authorization")).toBe("Bearer k-team");
  });

  it("signs Bedrock calls with a Bedrock API key when AWS_BEARER_TOKEN_BEDROCK is set instead of the key pair", async () => {
    const { seen, fetch } = recordingFetch();
    const resolved = resolveModel("amazon-bedrock/anthropic.claude-sonnet-4-5", {
      env: { AWS_BEARER_TOKEN_BEDROCK: "bedrock-key", AWS_REGION: "us-east-1" },
      root: project,
      fetch,
    });
    await expect(resolved.model.doStream(PROMPT)).rejects.toThrow();
    expect(seen[0]!.headers.get("authorization")).toBe("Bearer bedrock-key");
  });

  it("names the unset variable (and a fallback's by its path) at resolution, before any call", () => {
    expect(() => resolveModel("google/gemini-2.5-flash", { env: {}, root: project })).toThrow(
      'model.apiKeyEnvVar: environment variable GOOGLE_GENERATIVE_AI_API_KEY is not set (the google model "gemini-2.5-flash" needs it)',
    );
    expect(() => resolveModel("azure/my-deployment", { env: { AZURE_API_KEY: "k" }, root: project })).toThrow(
      "environment variable AZURE_RESOURCE_NAME is not set",
    );
    expect(() =>
      resolveModel(
        { model: "openai/gpt-4o", fallbacks: ["xai/grok-4"] },
        { env: { OPENAI_API_KEY: "k" }, root: project },
      ),
    ).toThrow("model.fallbacks[0].apiKeyEnvVar: environment variable XAI_API_KEY is not set");
  });

  it("names the package and the install command when an optional provider is not installed in the project", () => {
    const root = emptyProject();
    const attempt = (installCommand?: (pkg: string) => string) => {
      try {
        resolveModel("google/gemini-2.5-flash", {
          env: ENV,
          root,
          ...(installCommand ? { installCommand } : {}),
        });
      } catch (error) {
        return error as { code: string; message: string };
      }
      throw new Error("expected provider_not_installed");
    };
    expect(attempt()).toMatchObject({
      code: "provider_not_installed",
      message: `model "google/gemini-2.5-flash" needs the package @ai-sdk/google, which is not installed in ${root}. Install it: npm install @ai-sdk/google`,
    });
    expect(attempt((pkg) => `pnpm add ${pkg}`).message).toMatch(/Install it: pnpm add @ai-sdk\/google$/);
    // A fallback's missing package is named the same way.
    expect(() =>
      resolveModel({ model: "openai/gpt-4o", fallbacks: ["google/gemini-2.5-flash"] }, { env: ENV, root }),
    ).toThrow(/^model "google\/gemini-2\.5-flash" needs the package @ai-sdk\/google/);
    // Before its key: installing comes first.
    expect(() => resolveModel("google/gemini-2.5-flash", { env: {}, root })).toThrow(
      /needs the package @ai-sdk\/google/,
    );
  });

  it("loads only what a model names: the bundled providers need nothing installed in the project", () => {
    const root = emptyProject();
    for (const model of [
      "openai/gpt-4o",
      "anthropic/claude-sonnet-4-5",
      "openrouter/x/y",
      "ollama/llama3.2",
    ]) {
      expect(resolveModel(model as AgentModel, { env: ENV, root }).model.modelId).toBe(
        model.slice(model.indexOf("/") + 1),
      );
    }
  });
});

describe("settings, fallbacks and instances", () => {
  it("carries settings and resolved fallbacks (each with its own settings)", () => {
    const resolved = resolveModel(
      {
        model: "openai/gpt-4o",
        settings: { temperature: 0.1, maxRetries: 3, timeoutMs: 5000 },
        fallbacks: [
          "anthropic/claude-haiku-4-5",
          { model: "groq/llama-3.3-70b-versatile", settings: { topP: 0.9 } },
        ],
      },
      { env: ENV, root: project },
    );
    expect(resolved.settings).toEqual({ temperature: 0.1, maxRetries: 3, timeoutMs: 5000 });
    expect(resolved.fallbacks.map((f) => [f.provider, f.model.modelId, f.settings])).toEqual([
      ["anthropic", "claude-haiku-4-5", {}],
      ["groq", "llama-3.3-70b-versatile", { topP: 0.9 }],
    ]);
  });

  it("merges an Anthropic thinking budget into the provider options", () => {
    const resolved = resolveModel(
      {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        thinkingBudgetTokens: 2048,
        settings: { providerOptions: { anthropic: { sendReasoning: true } } },
      },
      { env: ENV, root: project },
    );
    expect(resolved.settings.providerOptions).toEqual({
      anthropic: { thinking: { type: "enabled", budgetTokens: 2048 }, sendReasoning: true },
    });
  });

  it("uses an instance as it is, bare or wrapped with settings", () => {
    const instance = createDemoModel();
    expect(resolveModel(instance).model).toBe(instance);
    const wrapped = resolveModel({ model: instance, settings: { temperature: 0 } });
    expect(wrapped.model).toBe(instance);
    expect(wrapped.settings).toEqual({ temperature: 0 });
    // Spans name the provider as the conventions do ("openai", not the SDK's "openai.chat").
    const openai = resolveModel("openai/gpt-4o", { env: ENV }).model;
    expect(resolveModel(openai).provider).toBe("openai");
  });

  it("runs an instance of the previous interface (v3, AI SDK 6 providers): its stream parts are the ones the loop reads", async () => {
    const parts: LanguageModelV3StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "From " },
      { type: "text-delta", id: "t", delta: "v3." },
      { type: "text-end", id: "t" },
      {
        type: "finish",
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: 4, noCache: 4, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 2, text: 2, reasoning: undefined },
        },
      },
    ];
    const v3: LanguageModelV3 = {
      specificationVersion: "v3",
      provider: "older.chat",
      modelId: "six",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("unused")),
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      }),
    };
    const runs = new RunManager({
      agent: defineAgent({ name: "six", model: v3 }),
      memory: new WindowMemory(),
    });
    const result = await runs.start({ input: "hi", userId: "u", conversationId: "c" }).done;
    expect(result).toMatchObject({ status: "completed", text: "From v3.", finishReason: "stop" });
    expect(result.usage).toMatchObject({ inputTokens: 4, outputTokens: 2 });
  });

  it("refuses invalid settings with the key named, as check does", () => {
    expect(() =>
      resolveModel(
        { model: "openai/gpt-4o", settings: { temperature: "hot" as unknown as number } },
        { env: ENV },
      ),
    ).toThrow('model.settings.temperature: expected a number between 0 and 2 (got "hot")');
  });
});
