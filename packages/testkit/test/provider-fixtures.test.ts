// The recorded-stream corpus (fixtures/providers/<provider>/*.json): each fixture replays through
// its provider's fake byte for byte as SSE, and its `expect` is what the events say when read the
// way each provider's docs describe them (a reader per format below, independent of the AI SDK).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ANTHROPIC_TEST_KEY,
  FakeAnthropic,
  FakeGemini,
  FakeOpenAI,
  GEMINI_TEST_KEY,
  loadProviderFixtures,
  OPENAI_TEST_KEY,
  type ProviderFixture,
} from "../src/index.js";
import { type Json, parseSse, post } from "./sse.js";

interface Read {
  text: string;
  reasoning?: string;
  toolCalls?: { name: string; arguments: unknown }[];
  finishReason: string;
}

const OPENAI_FINISH: Record<string, string> = { stop: "stop", length: "length", tool_calls: "tool-calls" };
function readOpenAI(events: Json[]): Read {
  let text = "";
  let reasoning = "";
  let finish = "unknown";
  const calls: { name: string; args: string }[] = [];
  for (const data of events) {
    if (data === "[DONE]") continue;
    const choice = data.choices[0];
    if (!choice) continue;
    text += choice.delta.content ?? "";
    reasoning += choice.delta.reasoning_content ?? choice.delta.reasoning ?? "";
    for (const call of choice.delta.tool_calls ?? []) {
      if (call.id) calls[call.index] = { name: call.function.name, args: "" };
      (calls[call.index] as { args: string }).args += call.function?.arguments ?? "";
    }
    if (choice.finish_reason) finish = OPENAI_FINISH[choice.finish_reason] ?? "other";
  }
  return {
    text,
    ...(reasoning ? { reasoning } : {}),
    ...(calls.length
      ? { toolCalls: calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.args) })) }
      : {}),
    finishReason: finish,
  };
}

const ANTHROPIC_FINISH: Record<string, string> = {
  end_turn: "stop",
  max_tokens: "length",
  tool_use: "tool-calls",
};
function readAnthropic(events: Json[]): Read {
  let text = "";
  let reasoning = "";
  let finish = "unknown";
  const calls: { name: string; args: string }[] = [];
  const blocks: Json[] = [];
  for (const data of events) {
    if (data.type === "content_block_start") {
      blocks[data.index] = data.content_block;
      if (data.content_block.type === "tool_use") calls.push({ name: data.content_block.name, args: "" });
    }
    if (data.type === "content_block_delta") {
      const delta = data.delta;
      if (delta.type === "text_delta") text += delta.text;
      if (delta.type === "thinking_delta") reasoning += delta.thinking;
      if (delta.type === "input_json_delta") (calls.at(-1) as { args: string }).args += delta.partial_json;
    }
    if (data.type === "message_delta") finish = ANTHROPIC_FINISH[data.delta.stop_reason] ?? "other";
    if (data.type === "error") finish = "error";
  }
  return {
    text,
    ...(reasoning ? { reasoning } : {}),
    ...(calls.length
      ? { toolCalls: calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.args) })) }
      : {}),
    finishReason: finish,
  };
}

function readGemini(events: Json[]): Read {
  let text = "";
  let reasoning = "";
  let finish = "unknown";
  const calls: { name: string; arguments: unknown }[] = [];
  for (const data of events) {
    const candidate = data.candidates[0];
    for (const part of candidate.content.parts) {
      if (part.functionCall) calls.push({ name: part.functionCall.name, arguments: part.functionCall.args });
      else if (part.thought) reasoning += part.text;
      else text += part.text ?? "";
    }
    if (candidate.finishReason)
      finish = candidate.finishReason === "MAX_TOKENS" ? "length" : calls.length ? "tool-calls" : "stop";
  }
  return {
    text,
    ...(reasoning ? { reasoning } : {}),
    ...(calls.length ? { toolCalls: calls } : {}),
    finishReason: finish,
  };
}

interface Format {
  provider: string;
  start(): Promise<FakeOpenAI | FakeAnthropic | FakeGemini>;
  request(fake: FakeOpenAI | FakeAnthropic | FakeGemini, model: string): Promise<string>;
  read(events: Json[]): Read;
}

const user = [{ role: "user", content: "hi" }];
const formats: Format[] = [
  {
    provider: "openai",
    start: () => FakeOpenAI.start(),
    request: async (fake, model) =>
      (
        await post(
          `${fake.baseURL}/chat/completions`,
          { model, stream: true, messages: user },
          {
            authorization: `Bearer ${OPENAI_TEST_KEY}`,
          },
        )
      ).text,
    read: readOpenAI,
  },
  {
    provider: "openai-compatible",
    start: () => FakeOpenAI.start({ apiKey: false, flavor: "deepseek" }),
    request: async (fake, model) =>
      (await post(`${fake.baseURL}/chat/completions`, { model, stream: true, messages: user }, {})).text,
    read: readOpenAI,
  },
  {
    provider: "anthropic",
    start: () => FakeAnthropic.start(),
    request: async (fake, model) =>
      (
        await post(
          `${fake.baseURL}/messages`,
          { model, max_tokens: 1024, stream: true, messages: user },
          {
            "x-api-key": ANTHROPIC_TEST_KEY,
            "anthropic-version": "2023-06-01",
          },
        )
      ).text,
    read: readAnthropic,
  },
  {
    provider: "google",
    start: () => FakeGemini.start(),
    request: async (fake, model) =>
      (
        await post(
          `${fake.baseURL}/models/${model}:streamGenerateContent?alt=sse`,
          { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
          { "x-goog-api-key": GEMINI_TEST_KEY },
        )
      ).text,
    read: readGemini,
  },
];

describe.each(formats)("the $provider corpus", (format) => {
  const fixtures: ProviderFixture[] = loadProviderFixtures(format.provider);
  let fake: FakeOpenAI | FakeAnthropic | FakeGemini;
  beforeAll(async () => {
    fake = await format.start();
  });
  afterAll(() => fake.close());

  it("has fixtures, each citing a public documentation page", () => {
    expect(fixtures.length).toBeGreaterThan(0);
    for (const fixture of fixtures)
      expect(fixture.source, fixture.file).toMatch(/^https:\/\/[\w.-]+\.(com|dev|ai)\//);
  });

  it.each(fixtures.map((f) => [f.file, f] as const))(
    "%s replays event for event and reads as its expect says",
    async (_file, fixture) => {
      fake.enqueue({ transcript: fixture.events });
      const sse = parseSse(await format.request(fake, fixture.model));
      expect(sse.map((e) => e.event)).toEqual(fixture.events.map((e) => e.event));
      const data = sse.map((e) => (e.data.startsWith("{") ? JSON.parse(e.data) : e.data));
      expect(data).toEqual(fixture.events.map((e) => e.data));
      const { usage: _usage, error, ...expected } = fixture.expect;
      // A stream that fails part-way ends with the provider's error event.
      expect(sse.at(-1)?.event === "error" || /"error"/.test(sse.at(-1)?.data ?? "")).toBe(
        error !== undefined,
      );
      expect(format.read(data)).toEqual(expected);
    },
  );
});
