// The provider fakes' prompt caches against the providers' documents: OpenAI caches a prompt's
// start on its own (https://platform.openai.com/docs/guides/prompt-caching: 1,024 tokens and more,
// steps of 128, `prompt_tokens_details.cached_tokens`); Anthropic caches up to each `cache_control`
// breakpoint (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching:
// `cache_creation_input_tokens`, `cache_read_input_tokens`, `input_tokens` the rest, in message_start
// and message_delta). The fakes count 4 characters a token.
import { describe, expect, it } from "vitest";
import { ANTHROPIC_TEST_KEY, FakeAnthropic, FakeOpenAI, OPENAI_TEST_KEY } from "../src/index.js";
import { startedFakes } from "./started-fakes.js";
import { type Json, parseSse, post } from "./sse.js";

const started = startedFakes();

/** About 1,500 of the fakes' tokens. */
const LONG = "You answer questions about the weather, briefly. ".repeat(120);

describe("FakeOpenAI: prompt caching", () => {
  const auth = { authorization: `Bearer ${OPENAI_TEST_KEY}` };
  const system = { role: "system", content: LONG };
  const user = (content: string) => ({ role: "user", content });
  const usageOf = async (openai: FakeOpenAI, messages: unknown[], stream = true) => {
    const res = await post(
      `${openai.baseURL}/chat/completions`,
      {
        model: "gpt-4o-mini",
        stream,
        stream_options: stream ? { include_usage: true } : undefined,
        messages,
      },
      auth,
    );
    if (!stream) return (res.json() as Json).usage;
    const last = parseSse(res.text).at(-2)?.data as string;
    return (JSON.parse(last) as Json).usage;
  };

  it("reports the start an earlier prompt had as cached, from 1,024 tokens in steps of 128, and the first prompt uncached", async () => {
    const openai = await started(FakeOpenAI.start());
    const first = await usageOf(openai, [system, user("Rain in Oslo?")]);
    expect(first.prompt_tokens).toBeGreaterThan(1024);
    expect(first.prompt_tokens_details.cached_tokens).toBe(0);

    // The next turn of the conversation: the first prompt's messages, then the answer and a question.
    const second = await usageOf(
      openai,
      [system, user("Rain in Oslo?"), { role: "assistant", content: "Yes." }, user("And Bergen?")],
      false,
    );
    const cached = second.prompt_tokens_details.cached_tokens;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect((cached - 1024) % 128).toBe(0);
    // All of the first prompt but its closing bracket, rounded down to a step.
    expect(cached).toBeGreaterThan(first.prompt_tokens - 128);
    expect(cached).toBeLessThanOrEqual(first.prompt_tokens);
    expect(second.prompt_tokens).toBeGreaterThan(cached);
  });

  it("caches nothing of a prompt under 1,024 tokens, of another model's prompt, or of a different start", async () => {
    const openai = await started(FakeOpenAI.start());
    await usageOf(openai, [user("short")]);
    expect((await usageOf(openai, [user("short"), user("again")])).prompt_tokens_details.cached_tokens).toBe(
      0,
    );

    await usageOf(openai, [system, user("one")]);
    const other = await post(
      `${openai.baseURL}/chat/completions`,
      { model: "gpt-4o", messages: [system, user("two")] },
      auth,
    );
    expect((other.json() as Json).usage.prompt_tokens_details.cached_tokens).toBe(0);
    const changed = await usageOf(openai, [user("first"), system]);
    expect(changed.prompt_tokens_details.cached_tokens).toBe(0);
  });

  it("reports the cached tokens a step scripts, and none beside a scripted input", async () => {
    const openai = await started(FakeOpenAI.start());
    await usageOf(openai, [system, user("one")]);
    openai.enqueue({ text: ["a"], usage: { input: 3000, cached: 2048, output: 1 } });
    expect(await usageOf(openai, [system, user("two")])).toMatchObject({
      prompt_tokens: 3000,
      prompt_tokens_details: { cached_tokens: 2048 },
    });
    openai.enqueue({ text: ["b"], usage: { input: 50, output: 1 } });
    expect((await usageOf(openai, [system, user("three")])).prompt_tokens_details.cached_tokens).toBe(0);
  });
});

describe("FakeAnthropic: prompt caching", () => {
  const headers = { "x-api-key": ANTHROPIC_TEST_KEY, "anthropic-version": "2023-06-01" };
  const cachedSystem = [{ type: "text", text: LONG, cache_control: { type: "ephemeral" } }];
  const request = (extra: Record<string, unknown>, stream = true) => ({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    stream,
    messages: [{ role: "user", content: "Rain in Oslo?" }],
    ...extra,
  });
  /** message_start's usage and message_delta's. */
  const usagesOf = async (anthropic: FakeAnthropic, body: Record<string, unknown>) => {
    const events = parseSse((await post(`${anthropic.baseURL}/messages`, body, headers)).text).map(
      (e) => JSON.parse(e.data) as Json,
    );
    const start = events.find((e) => e.type === "message_start").message.usage;
    const delta = events.find((e) => e.type === "message_delta").usage;
    return { start, delta };
  };

  it("writes the prefix up to a cache_control breakpoint, then reads it, in message_start and message_delta; input_tokens is the rest", async () => {
    const anthropic = await started(FakeAnthropic.start());
    const first = await usagesOf(anthropic, request({ system: cachedSystem }));
    expect(first.start.cache_read_input_tokens).toBe(0);
    expect(first.start.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(first.start.input_tokens).toBeGreaterThan(0);
    expect(first.delta).toMatchObject({
      input_tokens: first.start.input_tokens,
      cache_creation_input_tokens: first.start.cache_creation_input_tokens,
      cache_read_input_tokens: 0,
    });

    const second = await usagesOf(
      anthropic,
      request({
        system: cachedSystem,
        messages: [
          { role: "user", content: "Rain in Bergen?" },
          { role: "assistant", content: "Yes." },
          { role: "user", content: "And Oslo?" },
        ],
      }),
    );
    expect(second.start).toMatchObject({
      cache_read_input_tokens: first.start.cache_creation_input_tokens,
      cache_creation_input_tokens: 0,
    });
    expect(second.delta.cache_read_input_tokens).toBe(first.start.cache_creation_input_tokens);
    // The whole prompt is the three parts: the same system, more messages.
    const total = (u: Json) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    expect(total(second.start)).toBeGreaterThan(total(first.start));
  });

  it("with cache_control at the top caches up to the last block, and the next turn reads that and writes what it adds", async () => {
    const anthropic = await started(FakeAnthropic.start());
    const turn1 = [{ role: "user", content: LONG }];
    const first = await usagesOf(
      anthropic,
      request({ cache_control: { type: "ephemeral" }, messages: turn1 }),
    );
    expect(first.start).toMatchObject({ cache_read_input_tokens: 0, input_tokens: 0 });
    expect(first.start.cache_creation_input_tokens).toBeGreaterThan(1024);

    const turn2 = [...turn1, { role: "assistant", content: "Noted." }, { role: "user", content: "Go on." }];
    const second = await usagesOf(
      anthropic,
      request({ cache_control: { type: "ephemeral" }, messages: turn2 }),
    );
    expect(second.start).toMatchObject({
      cache_read_input_tokens: first.start.cache_creation_input_tokens,
      input_tokens: 0,
    });
    expect(second.start.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it("caches nothing without cache_control or under 1,024 tokens, and reports a step's scripted cache counts", async () => {
    const anthropic = await started(FakeAnthropic.start());
    await usagesOf(anthropic, request({ system: LONG }));
    const plain = await usagesOf(anthropic, request({ system: LONG }));
    expect(plain.start).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    const short = [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }];
    await usagesOf(anthropic, request({ system: short }));
    expect((await usagesOf(anthropic, request({ system: short }))).start).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });

    anthropic.enqueue({ text: ["a"], usage: { input: 5000, cached: 4000, cacheWrite: 600, output: 3 } });
    const res = await post(`${anthropic.baseURL}/messages`, request({}, false), headers);
    expect((res.json() as Json).usage).toEqual({
      input_tokens: 400,
      cache_read_input_tokens: 4000,
      cache_creation_input_tokens: 600,
      output_tokens: 3,
    });
  });
});
