// FakeOpenAI against OpenAI's documents: https://platform.openai.com/docs/api-reference/chat/streaming,
// https://platform.openai.com/docs/guides/error-codes; the compatible flavors' reasoning fields per
// https://api-docs.deepseek.com/guides/reasoning_model and https://docs.vllm.ai/en/latest/features/reasoning_outputs.html.
import { afterEach, describe, expect, it } from "vitest";
import { FakeOpenAI, OPENAI_TEST_KEY } from "../src/index.js";
import { type Json, parseSse, post } from "./sse.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const auth = { authorization: `Bearer ${OPENAI_TEST_KEY}` };
const user = (content: string) => ({ role: "user", content });
const streamBody = (messages: unknown[] = [user("hi")]) => ({
  model: "gpt-4o-mini",
  stream: true,
  stream_options: { include_usage: true },
  messages,
});
const chunks = (text: string) =>
  parseSse(text).map((e) => (e.data === "[DONE]" ? "[DONE]" : (JSON.parse(e.data) as Record<string, Json>)));

describe("FakeOpenAI: the Chat Completions stream", () => {
  it("streams a role chunk, content deltas, the finish chunk, one usage chunk with empty choices, then [DONE]", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({ text: ["Hel", "lo"], usage: { input: 9, output: 2 } });
    const res = await post(`${fake.baseURL}/chat/completions`, streamBody(), auth);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const all = chunks(res.text);
    expect(all.at(-1)).toBe("[DONE]");
    const objects = all.slice(0, -1) as Record<string, Json>[];
    expect(objects.every((c) => c.object === "chat.completion.chunk" && c.model === "gpt-4o-mini")).toBe(
      true,
    );
    expect(objects[0]?.choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
    expect(objects.slice(1, 3).map((c) => c.choices[0].delta.content)).toEqual(["Hel", "lo"]);
    expect(objects[3]?.choices[0]).toMatchObject({ delta: {}, finish_reason: "stop" });
    expect(objects.slice(0, 4).every((c) => c.usage === null)).toBe(true);
    expect(objects[4]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
    });
  });

  it("sends no usage chunk and no usage field when the request did not ask for include_usage", async () => {
    fake = await FakeOpenAI.start();
    const res = await post(
      `${fake.baseURL}/chat/completions`,
      { ...streamBody(), stream_options: undefined },
      auth,
    );
    const objects = chunks(res.text).slice(0, -1) as Record<string, Json>[];
    expect(objects.some((c) => "usage" in c)).toBe(false);
    expect(objects.at(-1)?.choices[0].finish_reason).toBe("stop");
  });

  it("splits tool-call arguments across chunks and keeps parallel calls apart by index", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({
      toolCalls: [
        { id: "call_a", name: "weather", arguments: ['{"city":', '"Paris"}'] },
        { id: "call_b", name: "time", arguments: ["{}"] },
      ],
    });
    const objects = chunks((await post(`${fake.baseURL}/chat/completions`, streamBody(), auth)).text).slice(
      0,
      -1,
    ) as Record<string, Json>[];
    const calls = objects.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toEqual({
      index: 0,
      id: "call_a",
      type: "function",
      function: { name: "weather", arguments: "" },
    });
    expect(
      calls
        .filter((c) => c.index === 0)
        .map((c) => c.function.arguments)
        .join(""),
    ).toBe('{"city":"Paris"}');
    expect(calls.filter((c) => c.index === 1)[0]).toMatchObject({ id: "call_b", function: { name: "time" } });
    expect(calls.filter((c) => c.id !== undefined)).toHaveLength(2);
    expect(objects.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe("tool_calls");
  });

  it("ends with finish_reason length when the answer is cut at the output limit", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({ text: ["cut"], finish: "length" });
    const objects = chunks((await post(`${fake.baseURL}/chat/completions`, streamBody(), auth)).text);
    expect(objects.some((c) => c !== "[DONE]" && c.choices[0]?.finish_reason === "length")).toBe(true);
  });

  it.each([
    ["deepseek", "reasoning_content"],
    ["vllm", "reasoning"],
  ] as const)("the %s flavor streams reasoning as delta.%s before the content", async (flavor, field) => {
    fake = await FakeOpenAI.start({ flavor, apiKey: false });
    fake.enqueue({ reasoning: ["think", "ing"], text: ["answer"] });
    const objects = chunks((await post(`${fake.baseURL}/chat/completions`, streamBody(), {})).text).slice(
      0,
      -1,
    ) as Record<string, Json>[];
    const deltas = objects.map((c) => c.choices[0]?.delta ?? {});
    expect(deltas.filter((d) => d[field]).map((d) => d[field])).toEqual(["think", "ing"]);
    expect(deltas.findIndex((d) => d[field])).toBeLessThan(deltas.findIndex((d) => d.content === "answer"));
  });

  it("the deepseek flavor refuses a tool loop whose assistant message lost the reasoning_content its tool calls came with", async () => {
    fake = await FakeOpenAI.start({ flavor: "deepseek" });
    fake.enqueue({ reasoning: ["look it up"], toolCalls: [{ id: "call_r", name: "f", arguments: ["{}"] }] });
    await post(`${fake.baseURL}/chat/completions`, streamBody(), auth);
    const call = { id: "call_r", type: "function", function: { name: "f", arguments: "{}" } };
    const history = (assistant: Record<string, unknown>) =>
      streamBody([
        user("hi"),
        { role: "assistant", content: null, tool_calls: [call], ...assistant },
        { role: "tool", tool_call_id: "call_r", content: "1" },
      ]);
    const lost = await post(`${fake.baseURL}/chat/completions`, history({}), auth);
    expect(lost.status).toBe(400);
    expect((lost.json() as Json).error.message).toBe(
      "Missing `reasoning_content` field in the assistant message at message index 1",
    );
    const kept = await post(
      `${fake.baseURL}/chat/completions`,
      history({ reasoning_content: "look it up" }),
      auth,
    );
    expect(kept.status).toBe(200);
  });

  it("answers a request without stream: true with one chat.completion object", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({
      text: ["Hel", "lo"],
      toolCalls: [{ id: "call_x", name: "f", arguments: ['{"a":', "1}"] }],
    });
    const res = await post(
      `${fake.baseURL}/chat/completions`,
      { model: "gpt-4o-mini", messages: [user("hi")] },
      auth,
    );
    expect(res.json()).toMatchObject({
      object: "chat.completion",
      choices: [
        {
          message: {
            role: "assistant",
            content: "Hello",
            tool_calls: [{ id: "call_x", function: { arguments: '{"a":1}' } }],
          },
          finish_reason: "tool_calls",
        },
      ],
    });
  });
});

describe("FakeOpenAI: refusals with OpenAI's own bodies", () => {
  it("answers 401 invalid_api_key for a wrong key and 401 for none, taking no scripted step", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({ text: ["kept"] });
    const wrong = await post(`${fake.baseURL}/chat/completions`, streamBody(), {
      authorization: "Bearer sk-wrong-1234",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json()).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_api_key" } });
    expect((wrong.json() as Json).error.message).toMatch(/^Incorrect API key provided: sk-\*+1234/);
    const none = await post(`${fake.baseURL}/chat/completions`, streamBody(), {});
    expect(none.status).toBe(401);
    expect((none.json() as Json).error.message).toMatch(/You didn't provide an API key/);
    expect(fake.pending).toBe(1);
    expect(fake.count).toBe(2);
  });

  it("refuses the old key once the key is changed (a key revoked while a client runs)", async () => {
    fake = await FakeOpenAI.start();
    expect((await post(`${fake.baseURL}/chat/completions`, streamBody(), auth)).status).toBe(200);
    fake.apiKey = "sk-rotated";
    expect((await post(`${fake.baseURL}/chat/completions`, streamBody(), auth)).status).toBe(401);
  });

  it("refuses a tool message that answers no preceding assistant tool_calls id", async () => {
    fake = await FakeOpenAI.start();
    const res = await post(
      `${fake.baseURL}/chat/completions`,
      streamBody([user("hi"), { role: "tool", tool_call_id: "call_nowhere", content: "42" }]),
      auth,
    );
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({
      error: {
        message:
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        type: "invalid_request_error",
        param: "messages.[1].role",
        code: null,
      },
    });
  });

  it("refuses an assistant tool_calls message whose ids are not all answered before the next message", async () => {
    fake = await FakeOpenAI.start();
    const calls = [
      { id: "call_1", type: "function", function: { name: "f", arguments: "{}" } },
      { id: "call_2", type: "function", function: { name: "g", arguments: "{}" } },
    ];
    const res = await post(
      `${fake.baseURL}/chat/completions`,
      streamBody([
        user("hi"),
        { role: "assistant", content: null, tool_calls: calls },
        { role: "tool", tool_call_id: "call_1", content: "ok" },
        user("and?"),
      ]),
      auth,
    );
    expect(res.status).toBe(400);
    expect((res.json() as Json).error).toMatchObject({
      param: "messages.[1].role",
      message: expect.stringContaining("did not have response messages: call_2"),
    });
  });

  it("refuses a history that ends before every tool_calls id of its last assistant message is answered", async () => {
    fake = await FakeOpenAI.start();
    const calls = ["call_1", "call_2"].map((id) => ({
      id,
      type: "function",
      function: { name: "f", arguments: "{}" },
    }));
    const res = await post(
      `${fake.baseURL}/chat/completions`,
      streamBody([
        user("hi"),
        { role: "assistant", content: null, tool_calls: calls },
        { role: "tool", tool_call_id: "call_2", content: "ok" },
      ]),
      auth,
    );
    expect(res.status).toBe(400);
    expect((res.json() as Json).error.message).toMatch(/did not have response messages: call_1$/);
  });

  it("accepts a history whose every tool_calls id is answered", async () => {
    fake = await FakeOpenAI.start();
    const res = await post(
      `${fake.baseURL}/chat/completions`,
      streamBody([
        user("hi"),
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "ok" },
      ]),
      auth,
    );
    expect(res.status).toBe(200);
  });

  it.each([
    [{ kind: "rate_limited", retryAfterSeconds: 2 }, 429, "rate_limit_exceeded", { "retry-after": "2" }],
    [{ kind: "rate_limited", retryAfterMs: 250 }, 429, "rate_limit_exceeded", { "retry-after-ms": "250" }],
    [{ kind: "context_length" }, 400, "context_length_exceeded", {}],
    [{ kind: "server_error" }, 500, null, {}],
    [{ kind: "overloaded" }, 503, null, {}],
  ] as const)(
    "a scripted %o is answered %i with code %s and its headers",
    async (fault, status, code, headers) => {
      fake = await FakeOpenAI.start();
      fake.enqueue({ fault });
      const res = await post(`${fake.baseURL}/chat/completions`, streamBody(), auth);
      expect(res.status).toBe(status);
      expect((res.json() as Json).error.code).toBe(code);
      for (const [name, value] of Object.entries(headers)) expect(res.headers.get(name)).toBe(value);
      expect(fake.requests[0]?.status).toBe(status);
    },
  );

  it("sends the error object as a data chunk mid-stream and ends the stream there", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({ text: ["a", "b", "c"], fault: { kind: "stream_error", afterTokens: 2 } });
    const all = chunks((await post(`${fake.baseURL}/chat/completions`, streamBody(), auth)).text);
    expect(all.map((c) => (c === "[DONE]" ? c : (c.choices?.[0]?.delta.content ?? c.error?.type)))).toEqual([
      "",
      "a",
      "b",
      "server_error",
    ]);
  });
});
