// Prompt-cache usage through the run loop with the real provider packages against the local fakes.
// The providers report a cached prompt differently: Anthropic's `input_tokens` leaves out the
// cache's read and write (https://docs.claude.com/en/docs/build-with-claude/prompt-caching,
// "Tracking cache performance": total input = input_tokens + cache_creation_input_tokens +
// cache_read_input_tokens), OpenAI's `prompt_tokens` holds `prompt_tokens_details.cached_tokens`
// (https://platform.openai.com/docs/guides/prompt-caching). Our usage counts each token once:
// `inputTokens` the whole prompt, `cachedInputTokens` and `cacheWriteInputTokens` parts of it.
import { afterEach, describe, expect, it } from "vitest";
import { defineAgent, type MeteredCall, RunManager, withMeter } from "../src/index.js";
import { type FakeAnthropic, startFakeAnthropic } from "./fake-anthropic-server.js";
import { type FakeOpenAI, startFakeOpenAI } from "./fake-openai-server.js";

const user = { userId: "u1", conversationId: "c1" };
let server: FakeAnthropic | FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs one turn, recording each model call the meter is told about. */
async function turn(runs: RunManager) {
  const calls: MeteredCall[] = [];
  const meter = { admit: async () => undefined, record: (call: MeteredCall) => void calls.push(call) };
  const result = await withMeter(meter, { agent: "bot", ...user }, () =>
    runs.start({ input: "hello", ...user }),
  ).done;
  return { result, calls };
}

/** One turn of an agent on `provider`'s real package against `fake` (closed after the test). */
async function turnOn(provider: "anthropic" | "openai", fake: FakeAnthropic | FakeOpenAI) {
  server = fake;
  const { baseURL } = fake;
  const [model, env] =
    provider === "anthropic"
      ? [{ provider, model: "claude-sonnet-4-5", baseURL }, { ANTHROPIC_API_KEY: "sk-ant-test" }]
      : [{ provider, model: "gpt-4o-mini", baseURL }, { OPENAI_API_KEY: "sk-test" }];
  return turn(new RunManager({ agent: defineAgent({ name: "bot", model }), env }));
}

describe("prompt-cache usage", () => {
  it("Anthropic: the input counts the uncached rest, the cache write and the cache read once each, the write reported on its own", async () => {
    const fake = await startFakeAnthropic([
      {
        blocks: [{ type: "text", deltas: ["Hi."] }],
        promptUsage: { input_tokens: 50, cache_creation_input_tokens: 2000, cache_read_input_tokens: 300 },
      },
    ]);
    const { result, calls } = await turnOn("anthropic", fake);
    expect(result.status).toBe("completed");
    const expected = { inputTokens: 2350, cachedInputTokens: 300, cacheWriteInputTokens: 2000 };
    expect(result.usage).toMatchObject(expected);
    expect(calls.map((c) => c.usage)).toMatchObject([expected]);
  });

  it("OpenAI: the input is prompt_tokens as reported, its cached_tokens a part of it, no cache write", async () => {
    const fake = await startFakeOpenAI([
      {
        deltas: [{ content: "Hi." }],
        usage: {
          prompt_tokens: 2350,
          completion_tokens: 2,
          total_tokens: 2352,
          prompt_tokens_details: { cached_tokens: 2048 },
        },
      },
    ]);
    const { result, calls } = await turnOn("openai", fake);
    expect(result.status).toBe("completed");
    expect(result.usage).toMatchObject({ inputTokens: 2350, cachedInputTokens: 2048, totalTokens: 2352 });
    expect(result.usage?.cacheWriteInputTokens).toBeUndefined();
    expect(calls[0]?.usage).toEqual(result.usage);
  });

  it("a turn's usage sums each call's cache write", async () => {
    const fake = await startFakeAnthropic([
      {
        blocks: [{ type: "tool_use", id: "toolu_1", name: "missing", inputJson: ["{}"] }],
        promptUsage: { input_tokens: 10, cache_creation_input_tokens: 1500 },
      },
      {
        blocks: [{ type: "text", deltas: ["Done."] }],
        promptUsage: { input_tokens: 20, cache_creation_input_tokens: 40, cache_read_input_tokens: 1500 },
      },
    ]);
    const { result, calls } = await turnOn("anthropic", fake);
    expect(calls.map((c) => c.usage.cacheWriteInputTokens)).toEqual([1500, 40]);
    expect(result.usage).toMatchObject({
      inputTokens: 1510 + 1560,
      cachedInputTokens: 1500,
      cacheWriteInputTokens: 1540,
    });
  });
});
