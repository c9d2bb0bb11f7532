import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  createDemoModel,
  createModel,
  DEMO_MODEL_ID,
  isDemoModel,
  toModelTools,
  defineTool,
} from "../src/index.js";

async function parts(
  options: LanguageModelV4CallOptions,
  tokenDelayMs = 0,
): Promise<LanguageModelV4StreamPart[]> {
  const { stream } = await createDemoModel({ tokenDelayMs }).doStream(options);
  const out: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) out.push(part);
  return out;
}

const echo = defineTool({
  name: "echo_back",
  description: "echo",
  input: v.object({ text: v.string(), times: v.number() }),
  execute: (x) => x,
});

describe("demo model", () => {
  it("calls itself a demo model everywhere", () => {
    const model = createModel({ provider: "demo" });
    expect(model.modelId).toBe(DEMO_MODEL_ID);
    expect(isDemoModel(model)).toBe(true);
    expect(isDemoModel({ provider: "demo" })).toBe(true);
    expect(
      isDemoModel(createModel({ provider: "openai-compatible", model: "m", baseURL: "http://127.0.0.1:9" })),
    ).toBe(false);
  });

  it("is deterministic for a given history", async () => {
    const options: LanguageModelV4CallOptions = {
      prompt: [{ role: "user", content: [{ type: "text", text: "same" }] }],
    };
    expect(await parts(options)).toEqual(await parts(options));
  });

  it("calls the mentioned tool with arguments fitted to its schema", async () => {
    const out = await parts({
      prompt: [{ role: "user", content: [{ type: "text", text: "please echo_back 3 times" }] }],
      tools: toModelTools([echo]),
    });
    const call = out.find((p) => p.type === "tool-call");
    expect(call).toMatchObject({ toolName: "echo_back" });
    expect(JSON.parse((call as { input: string }).input)).toEqual({
      text: "please echo_back 3 times",
      times: 3,
    });
  });

  it("follows a script step by model-call index of the turn", async () => {
    const model = createDemoModel({ script: [{ text: "zero" }, { text: "one" }] });
    const prompt: LanguageModelV4CallOptions["prompt"] = [
      { role: "user", content: [{ type: "text", text: "x" }] },
    ];
    expect(model.planStep({ prompt, providerOptions: { agentsvcDemo: { step: 1 } } })).toEqual({
      text: "one",
    });
    expect(model.planStep({ prompt })).toEqual({ text: "zero" });
    expect(model.planStep({ prompt, providerOptions: { agentsvcDemo: { step: 5 } } }).text).toBe(
      "(The demo script has no step 6; it has 2.)",
    );
  });

  it("stops streaming when aborted", async () => {
    const controller = new AbortController();
    const { stream } = await createDemoModel({
      tokenDelayMs: 50,
      script: [{ text: "a b c d e f" }],
    }).doStream({
      prompt: [],
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    await reader.read();
    controller.abort();
    await expect(
      (async () => {
        while (!(await reader.read()).done);
      })(),
    ).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("the demo model with no token delay", () => {
  it("streams every part in order, then ends", async () => {
    const { stream } = await createDemoModel({ script: [{ text: "a b c" }] }).doStream({ prompt: [] });
    const reader = stream.getReader();
    const deltas: string[] = [];
    const types: string[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      types.push(next.value.type);
      if (next.value.type === "text-delta") deltas.push(next.value.delta);
    }
    expect(deltas.join("")).toBe("a b c");
    expect(types[0]).toBe("stream-start");
    expect(types.at(-1)).toBe("finish");
  });

  it("an abort after the first part fails the next read: the parts still queued are dropped", async () => {
    const controller = new AbortController();
    const { stream } = await createDemoModel({ script: [{ text: "a b c d e f" }] }).doStream({
      prompt: [],
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("createModel", () => {
  it("names the unset API key variable instead of failing later", () => {
    expect(() =>
      createModel({ provider: "anthropic", model: "claude", apiKeyEnvVar: "MY_KEY" }, { env: {} }),
    ).toThrow(/model.apiKeyEnvVar: environment variable MY_KEY is not set/);
  });

  it("lets an openai-compatible server run without a key", () => {
    expect(
      createModel(
        { provider: "openai-compatible", model: "llama", baseURL: "http://127.0.0.1:11434/v1" },
        { env: {} },
      ).modelId,
    ).toBe("llama");
  });
});
