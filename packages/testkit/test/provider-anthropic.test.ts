// FakeAnthropic against Anthropic's documents: https://docs.anthropic.com/en/docs/build-with-claude/streaming,
// https://docs.anthropic.com/en/api/errors, https://docs.anthropic.com/en/api/messages,
// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use,
// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking.
import { afterEach, describe, expect, it } from "vitest";
import { ANTHROPIC_TEST_KEY, FakeAnthropic } from "../src/index.js";
import { type Json, parseSse, post } from "./sse.js";

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const headers = { "x-api-key": ANTHROPIC_TEST_KEY, "anthropic-version": "2023-06-01" };
const body = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  stream: true,
  messages,
  ...extra,
});
const hi = [{ role: "user", content: "hi" }];
const events = (text: string) =>
  parseSse(text).map((e) => ({ event: e.event, data: JSON.parse(e.data) as Record<string, Json> }));

describe("FakeAnthropic: the Messages stream", () => {
  it("names every event and repeats the name as data.type, in the documented order", async () => {
    fake = await FakeAnthropic.start();
    fake.enqueue({ text: ["Hello", "!"], usage: { input: 25, output: 15 } });
    const all = events((await post(`${fake.baseURL}/messages`, body(hi), headers)).text);
    expect(all.every((e) => e.event === e.data.type)).toBe(true);
    expect(all.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(all[0]?.data.message).toMatchObject({
      role: "assistant",
      content: [],
      stop_reason: null,
      usage: { input_tokens: 25 },
    });
    expect(all[6]?.data).toMatchObject({
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 15 },
    });
  });

  it("streams thinking as thinking_delta then one signature_delta, a redacted block whole, and tool input as input_json_delta", async () => {
    fake = await FakeAnthropic.start();
    fake.enqueue({
      redactedThinking: "EmwKAhgBEgy3va3pzix",
      reasoning: ["Let me ", "check."],
      signature: "sig-1",
      toolCalls: [{ id: "toolu_1", name: "weather", arguments: ['{"city":', '"Paris"}'] }],
    });
    const all = events(
      (
        await post(
          `${fake.baseURL}/messages`,
          body(hi, { thinking: { type: "enabled", budget_tokens: 2048 } }),
          headers,
        )
      ).text,
    );
    const starts = all.filter((e) => e.event === "content_block_start").map((e) => e.data.content_block);
    expect(starts).toEqual([
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
      { type: "thinking", thinking: "", signature: "" },
      { type: "tool_use", id: "toolu_1", name: "weather", input: {} },
    ]);
    const deltas = all.filter((e) => e.event === "content_block_delta").map((e) => e.data.delta);
    expect(deltas).toEqual([
      { type: "thinking_delta", thinking: "Let me " },
      { type: "thinking_delta", thinking: "check." },
      { type: "signature_delta", signature: "sig-1" },
      { type: "input_json_delta", partial_json: '{"city":' },
      { type: "input_json_delta", partial_json: '"Paris"}' },
    ]);
    expect(all.find((e) => e.event === "message_delta")?.data.delta.stop_reason).toBe("tool_use");
  });

  it("says max_tokens when the answer is cut at the output limit", async () => {
    fake = await FakeAnthropic.start();
    fake.enqueue({ text: ["cut"], finish: "length" });
    const all = events((await post(`${fake.baseURL}/messages`, body(hi), headers)).text);
    expect(all.find((e) => e.event === "message_delta")?.data.delta.stop_reason).toBe("max_tokens");
  });

  it("sends event: error with overloaded_error mid-stream and no message_stop after it", async () => {
    fake = await FakeAnthropic.start();
    fake.enqueue({ text: ["a", "b"], fault: { kind: "stream_error" } });
    const all = events((await post(`${fake.baseURL}/messages`, body(hi), headers)).text);
    expect(all.at(-1)).toEqual({
      event: "error",
      data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
    expect(all.filter((e) => e.event === "content_block_delta")).toHaveLength(1);
    expect(all.some((e) => e.event === "message_stop")).toBe(false);
  });

  it("answers a request without stream with one message object", async () => {
    fake = await FakeAnthropic.start();
    fake.enqueue({ text: ["Hi"], toolCalls: [{ id: "toolu_9", name: "f", arguments: ['{"a":1}'] }] });
    const res = await post(`${fake.baseURL}/messages`, { ...body(hi), stream: undefined }, headers);
    expect(res.json()).toMatchObject({
      type: "message",
      content: [
        { type: "text", text: "Hi" },
        { type: "tool_use", id: "toolu_9", input: { a: 1 } },
      ],
      stop_reason: "tool_use",
    });
  });
});

describe("FakeAnthropic: refusals with Anthropic's own bodies", () => {
  const errorOf = (res: { json: () => unknown }) =>
    (res.json() as { error: { type: string; message: string } }).error;

  it("answers 401 authentication_error for a wrong key and 400 without anthropic-version", async () => {
    fake = await FakeAnthropic.start();
    const wrong = await post(`${fake.baseURL}/messages`, body(hi), { ...headers, "x-api-key": "nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.json()).toMatchObject({
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key" },
    });
    const noVersion = await post(`${fake.baseURL}/messages`, body(hi), { "x-api-key": ANTHROPIC_TEST_KEY });
    expect(noVersion.status).toBe(400);
    expect(errorOf(noVersion).message).toBe("anthropic-version: header is required");
  });

  it.each([
    [{ kind: "rate_limited", retryAfterSeconds: 3 }, 429, "rate_limit_error"],
    [{ kind: "overloaded" }, 529, "overloaded_error"],
    [{ kind: "server_error" }, 500, "api_error"],
    [{ kind: "context_length" }, 400, "invalid_request_error"],
  ] as const)("a scripted %o is answered %i %s", async (fault, status, type) => {
    fake = await FakeAnthropic.start();
    fake.enqueue({ fault });
    const res = await post(`${fake.baseURL}/messages`, body(hi), headers);
    expect(res.status).toBe(status);
    expect(errorOf(res).type).toBe(type);
    if (fault.kind === "rate_limited") expect(res.headers.get("retry-after")).toBe("3");
    if (fault.kind === "context_length")
      expect(errorOf(res).message).toMatch(/^prompt is too long: \d+ tokens > \d+ maximum$/);
  });

  it("refuses a tool_use that the next user turn does not answer with a tool_result first", async () => {
    fake = await FakeAnthropic.start();
    const use = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: {} }] };
    const textFirst = {
      role: "user",
      content: [
        { type: "text", text: "here" },
        { type: "tool_result", tool_use_id: "toolu_1", content: "42" },
      ],
    };
    const res = await post(`${fake.baseURL}/messages`, body([...hi, use, textFirst]), headers);
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toMatch(
      /^messages\.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1\./,
    );
  });

  it("combines consecutive same-role messages into one turn, as the API does", async () => {
    fake = await FakeAnthropic.start();
    const res = await post(
      `${fake.baseURL}/messages`,
      body([...hi, { role: "user", content: "again" }]),
      headers,
    );
    expect(res.status).toBe(200);
  });

  it("refuses a tool_result whose tool_use is not in the previous assistant turn", async () => {
    fake = await FakeAnthropic.start();
    const res = await post(
      `${fake.baseURL}/messages`,
      body([
        ...hi,
        { role: "assistant", content: "ok" },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "1" }] },
      ]),
      headers,
    );
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toMatch(/unexpected `tool_use_id` found in `tool_result` blocks: toolu_x/);
  });

  it("refuses an empty message that is not the final assistant one", async () => {
    fake = await FakeAnthropic.start();
    const res = await post(
      `${fake.baseURL}/messages`,
      body([...hi, { role: "assistant", content: [] }, { role: "user", content: "x" }]),
      headers,
    );
    expect(errorOf(res).message).toBe(
      "messages.1: all messages must have non-empty content except for the optional final assistant message",
    );
  });

  it("with thinking on, refuses a tool loop whose last assistant turn lost its thinking block, and accepts it kept with the issued signature", async () => {
    fake = await FakeAnthropic.start();
    fake.enqueue({
      reasoning: ["hmm"],
      signature: "sig-kept",
      toolCalls: [{ id: "toolu_1", name: "f", arguments: ["{}"] }],
    });
    const thinking = { thinking: { type: "enabled", budget_tokens: 2048 } };
    await post(`${fake.baseURL}/messages`, body(hi, thinking), headers);
    const result = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "1" }] };
    const toolUse = { type: "tool_use", id: "toolu_1", name: "f", input: {} };
    const lost = await post(
      `${fake.baseURL}/messages`,
      body([...hi, { role: "assistant", content: [toolUse] }, result], thinking),
      headers,
    );
    expect(lost.status).toBe(400);
    expect(errorOf(lost).message).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`/,
    );
    const forged = { type: "thinking", thinking: "hmm", signature: "sig-forged" };
    const bad = await post(
      `${fake.baseURL}/messages`,
      body([...hi, { role: "assistant", content: [forged, toolUse] }, result], thinking),
      headers,
    );
    expect(errorOf(bad).message).toBe("messages.1.content.0: Invalid `signature` in `thinking` block");
    const kept = { type: "thinking", thinking: "hmm", signature: "sig-kept" };
    const ok = await post(
      `${fake.baseURL}/messages`,
      body([...hi, { role: "assistant", content: [kept, toolUse] }, result], thinking),
      headers,
    );
    expect(ok.status).toBe(200);
  });
});
