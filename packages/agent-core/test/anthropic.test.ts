import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AnyTool,
  CANCELLED_RESULT,
  createModel,
  defineAgent,
  defineTool,
  type Message,
  type ModelSpec,
  RunManager,
  WindowMemory,
} from "../src/index.js";
import { type FakeAnthropic, type FakeAnthropicReply, startFakeAnthropic } from "./fake-anthropic-server.js";
import { cancelAfterFirstTools, collect, contentOf, firstContent, reasoningOf } from "./helpers.js";

const user = { userId: "u1", conversationId: "c1" };
const env = { ANTHROPIC_API_KEY: "sk-ant-test-key" };
let server: FakeAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function managerFor(
  replies: FakeAnthropicReply[],
  options: { tools?: AnyTool[]; thinkingBudgetTokens?: number } = {},
) {
  server = await startFakeAnthropic(replies);
  const memory = new WindowMemory();
  const model: ModelSpec = {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    baseURL: server.baseURL,
    ...(options.thinkingBudgetTokens ? { thinkingBudgetTokens: options.thinkingBudgetTokens } : {}),
  };
  const agent = defineAgent({ name: "claude", instructions: "Be brief.", model, tools: options.tools });
  // The model goes through createModel (the real @ai-sdk/anthropic provider) with the key from env.
  return { runs: new RunManager({ agent, memory, env }), memory, server };
}

type Block = {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
};
type Sent = {
  model: string;
  system?: { type: string; text: string }[];
  thinking?: unknown;
  max_tokens: number;
  messages: { role: string; content: Block[] }[];
};
const sent = (fake: FakeAnthropic, i: number) => fake.requests[i] as Sent;

/** The text of a tool_result block (the provider sends text results as a string or text parts). */
function resultText(block: Block | undefined): unknown {
  const content = block?.content;
  if (Array.isArray(content)) return content.map((c: { text?: string }) => c.text ?? "").join("");
  return content;
}

function lookupTool(seen: unknown[] = []) {
  return defineTool({
    name: "lookup",
    description: "Look something up",
    input: v.object({ q: v.string() }),
    execute: (input) => {
      seen.push(input);
      return `found ${input.q}`;
    },
  });
}

describe("anthropic provider against a local fake Messages API", () => {
  it("streams text as delta.content, sends x-api-key and anthropic-version, and persists the turn", async () => {
    const { runs, memory, server } = await managerFor([
      { blocks: [{ type: "text", deltas: ["Hello", " from", " Claude."] }] },
    ]);
    const events = await collect(runs.start({ input: "hi", ...user }));
    const contents = events.map((e) => e.chunk.choices[0].delta.content).filter(Boolean);
    expect(contents).toEqual(["Hello", " from", " Claude."]);
    expect(events.at(-1)?.chunk.choices[0].finish_reason).toBe("stop");
    expect(server.headers[0]).toEqual({ apiKey: "sk-ant-test-key", version: "2023-06-01" });
    const body = sent(server, 0);
    expect(body.model).toBe("claude-sonnet-4-5");
    expect(body.system).toEqual([{ type: "text", text: "Be brief." }]);
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    expect(body.thinking).toBeUndefined();
    expect(await memory.load(user)).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello from Claude." },
    ]);
  });

  it("reads the key from apiKeyEnvVar when set, and fails at start-up when it is missing", async () => {
    server = await startFakeAnthropic([{ blocks: [{ type: "text", deltas: ["ok"] }] }]);
    const spec: ModelSpec = {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      baseURL: server.baseURL,
      apiKeyEnvVar: "MY_CLAUDE_KEY",
    };
    expect(() => createModel(spec, { env })).toThrow(
      /model\.apiKeyEnvVar: environment variable MY_CLAUDE_KEY/,
    );
    const runs = new RunManager({
      agent: defineAgent({ name: "k", model: spec }),
      env: { MY_CLAUDE_KEY: "k-2" },
    });
    expect((await runs.start({ input: "x", ...user }).done).text).toBe("ok");
    expect(server.headers[0]?.apiKey).toBe("k-2");
  });

  it("rejects a thinking budget below Anthropic's minimum of 1024 at createModel, naming the key", () => {
    for (const bad of [0, 1023, 2048.5]) {
      expect(() =>
        createModel(
          { provider: "anthropic", model: "claude-sonnet-4-5", thinkingBudgetTokens: bad },
          { env },
        ),
      ).toThrow(
        new RegExp(
          `^model\\.thinkingBudgetTokens: must be (at least 1024|an integer) \\(extended-thinking token budget\\) \\(got ${bad}\\)$`,
        ),
      );
    }
  });

  it("streams thinking as delta.reasoning and replays the thinking block with its exact signature before tool_use", async () => {
    const seen: unknown[] = [];
    const { runs, memory, server } = await managerFor(
      [
        {
          blocks: [
            { type: "thinking", deltas: ["I should ", "look it up."], signature: "sig-A1/xyz==" },
            { type: "tool_use", id: "toolu_01", name: "lookup", inputJson: ['{"q":', '"cats"}'] },
          ],
        },
        { blocks: [{ type: "text", deltas: ["Cats ", "found."] }] },
        { blocks: [{ type: "text", deltas: ["Dogs too."] }] },
      ],
      { tools: [lookupTool(seen)], thinkingBudgetTokens: 2048 },
    );
    const events = await collect(runs.start({ input: "find cats", ...user }));
    expect(events.filter((e) => e.chunk.choices[0].delta.reasoning).length).toBe(2);
    expect(reasoningOf(events)).toBe("I should look it up.");
    expect(contentOf(events)).toBe("Cats found.");
    expect(seen).toEqual([{ q: "cats" }]);
    expect(server.rejections.size).toBe(0);

    const first = sent(server, 0);
    expect(first.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    // The provider adds the budget to max_tokens (the API requires budget < max_tokens).
    expect(first.max_tokens).toBeGreaterThan(2048);

    const second = sent(server, 1);
    expect(second.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(second.messages[1]?.content).toEqual([
      { type: "thinking", thinking: "I should look it up.", signature: "sig-A1/xyz==" },
      { type: "tool_use", id: "toolu_01", name: "lookup", input: { q: "cats" } },
    ]);
    const result = second.messages[2]?.content[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01" });
    expect(resultText(result)).toBe("found cats");

    // Stored as JSON-serialisable history (a database memory stores JSON.stringify of each message).
    const stored = (await memory.load(user))[1] as Extract<Message, { role: "assistant" }>;
    expect(stored.reasoning).toBe("I should look it up.");
    expect(stored.reasoningParts).toEqual([
      { text: "I should look it up.", metadata: { anthropic: { signature: "sig-A1/xyz==" } } },
    ]);
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored);

    // A later turn replays the same history from memory and passes the signature rule again.
    const later = await runs.start({ input: "and dogs?", ...user }).done;
    expect(later.status).toBe("completed");
    expect(later.text).toBe("Dogs too.");
    expect(server.rejections.size).toBe(0);
    expect(sent(server, 2).messages[1]?.content[0]).toEqual({
      type: "thinking",
      thinking: "I should look it up.",
      signature: "sig-A1/xyz==",
    });
  });

  it("keeps each thinking block's own signature when one step has several", async () => {
    const { runs, server } = await managerFor(
      [
        {
          blocks: [
            { type: "thinking", deltas: ["First thought."], signature: "sig-one" },
            { type: "thinking", deltas: ["Second ", "thought."], signature: "sig-two" },
            { type: "tool_use", id: "toolu_02", name: "lookup", inputJson: ['{"q":"x"}'] },
          ],
        },
        { blocks: [{ type: "text", deltas: ["Done."] }] },
      ],
      { tools: [lookupTool()], thinkingBudgetTokens: 1024 },
    );
    const result = await runs.start({ input: "think twice", ...user }).done;
    expect(result.status).toBe("completed");
    expect(result.reasoning).toBe("First thought.Second thought.");
    expect(sent(server, 1).messages[1]?.content.slice(0, 2)).toEqual([
      { type: "thinking", thinking: "First thought.", signature: "sig-one" },
      { type: "thinking", thinking: "Second thought.", signature: "sig-two" },
    ]);
  });

  it("replays a redacted_thinking block with its data, so a tool-use continuation is accepted", async () => {
    const { runs, memory, server } = await managerFor(
      [
        {
          blocks: [
            { type: "redacted_thinking", data: "EncryptedBlob==" },
            { type: "tool_use", id: "toolu_05", name: "lookup", inputJson: ['{"q":"r"}'] },
          ],
        },
        { blocks: [{ type: "text", deltas: ["Ok."] }] },
      ],
      { tools: [lookupTool()], thinkingBudgetTokens: 1024 },
    );
    const result = await runs.start({ input: "secret", ...user }).done;
    expect(result.status).toBe("completed");
    expect(server.rejections.size).toBe(0);
    expect(sent(server, 1).messages[1]?.content[0]).toEqual({
      type: "redacted_thinking",
      data: "EncryptedBlob==",
    });
    expect((await memory.load(user))[1]).toMatchObject({
      reasoningParts: [{ text: "", metadata: { anthropic: { redactedData: "EncryptedBlob==" } } }],
    });
  });

  it("fails the turn with the provider's 400 message when history breaks the thinking rule (the fake enforces it)", async () => {
    server = await startFakeAnthropic([{ blocks: [{ type: "text", deltas: ["never"] }] }]);
    // History written by something that dropped the thinking block (what happens without metadata).
    const memory = new WindowMemory();
    await memory.append(user, [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "toolu_9", name: "lookup", arguments: { q: "a" } }],
      },
      { role: "tool", toolCallId: "toolu_9", toolName: "lookup", result: "r" },
      { role: "assistant", content: "a" },
    ]);
    const agent = defineAgent({
      name: "claude",
      model: {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        baseURL: server.baseURL,
        thinkingBudgetTokens: 1024,
      },
      tools: [lookupTool()],
    });
    const result = await new RunManager({ agent, memory, env }).start({ input: "again", ...user }).done;
    expect(result.status).toBe("failed");
    // A refusal of the history: bad_request, not retried; the provider's text is the detail.
    expect(result.error).toMatchObject({
      code: "bad_request",
      message: "The model provider refused the request (HTTP 400).",
      statusCode: 400,
    });
    expect(result.error?.detail).toMatch(/Expected `thinking` or `redacted_thinking`, but found `tool_use`/);
    expect(server.requests).toHaveLength(1);
    expect(server.rejections.get(0)).toMatch(/^messages\.1\.content\.0\.type/);
  });

  it("parses tool input streamed as partial JSON over several input_json_delta events", async () => {
    const seen: unknown[] = [];
    const { runs, server } = await managerFor(
      [
        {
          blocks: [
            { type: "text", deltas: ["Looking."] },
            {
              type: "tool_use",
              id: "toolu_03",
              name: "lookup",
              inputJson: ['{"', 'q": "big', " cats", '"', "}"],
            },
          ],
        },
        { blocks: [{ type: "text", deltas: ["Here."] }] },
      ],
      { tools: [lookupTool(seen)] },
    );
    const events = await collect(runs.start({ input: "find big cats", ...user }));
    expect(seen).toEqual([{ q: "big cats" }]);
    const fragments = events.flatMap((e) => e.chunk.choices[0].delta.tool_calls ?? []);
    expect(fragments[0]).toMatchObject({ index: 0, id: "toolu_03", function: { name: "lookup" } });
    expect(fragments.every((f) => f.index === 0)).toBe(true);
    expect(fragments.map((f) => f.function.arguments ?? "").join("")).toBe('{"q": "big cats"}');
    expect(sent(server, 1).messages[1]?.content).toEqual([
      { type: "text", text: "Looking." },
      { type: "tool_use", id: "toolu_03", name: "lookup", input: { q: "big cats" } },
    ]);
    expect(contentOf(events)).toBe("Looking.Here.");
  });

  it("aborts the HTTP request on cancel mid-stream (the server sees the hang-up) and keeps the partial text", async () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i} `);
    const { runs, memory, server } = await managerFor([
      { blocks: [{ type: "text", deltas: words }], delayMs: 20 },
    ]);
    const handle = runs.start({ input: "talk", ...user });
    await firstContent(handle);
    expect(runs.cancel(handle.threadId, { userId: "u1" })).toBe(true);
    const result = await handle.done;
    expect(result.status).toBe("cancelled");
    expect(await server.outcomes[0]).toBe("client-closed");
    const stored = await memory.load(user);
    expect(stored[1]?.role).toBe("assistant");
    const text = (stored[1] as { content: string }).content;
    expect(text.startsWith("w0 ")).toBe(true);
    expect(text.length).toBeLessThan(words.join("").length);
  });

  it("a cancel while Claude is still thinking leaves history the next turn can send", async () => {
    const thoughts = Array.from({ length: 100 }, (_, i) => `t${i} `);
    const { runs, memory, server } = await managerFor(
      [
        { blocks: [{ type: "thinking", deltas: thoughts, signature: "sig-never-sent" }], delayMs: 20 },
        { blocks: [{ type: "text", deltas: ["Back."] }] },
      ],
      { thinkingBudgetTokens: 1024 },
    );
    const handle = runs.start({ input: "ponder", ...user });
    for await (const event of handle.events()) if (event.chunk.choices[0].delta.reasoning) break;
    runs.cancel(handle.threadId, { userId: "u1" });
    expect((await handle.done).status).toBe("cancelled");
    expect(await server.outcomes[0]).toBe("client-closed");
    const stored = (await memory.load(user))[1] as Extract<Message, { role: "assistant" }>;
    expect(stored.reasoning?.startsWith("t0 ")).toBe(true);
    expect(stored.reasoningParts).toBeUndefined(); // the signature never arrived

    const next = await runs.start({ input: "and now?", ...user }).done;
    expect(server.rejections.get(1)).toBeUndefined();
    expect(next.status).toBe("completed");
    // The unsigned, text-less reply is left out; the two user messages go as one user turn.
    expect(sent(server, 1).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "ponder" },
          { type: "text", text: "and now?" },
        ],
      },
    ]);
  });

  it("a tool_use completed before a mid-stream cancel gets a cancelled tool_result, so the next turn passes the pairing rule", async () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i} `);
    const seen: unknown[] = [];
    const { runs, server } = await managerFor(
      [
        {
          blocks: [
            { type: "thinking", deltas: ["Plan."], signature: "sig-plan" },
            { type: "tool_use", id: "toolu_04", name: "lookup", inputJson: ['{"q":', '"late"}'] },
            { type: "text", deltas: words },
          ],
          delayMs: 20,
        },
        { blocks: [{ type: "text", deltas: ["Fresh start."] }] },
      ],
      { tools: [lookupTool(seen)], thinkingBudgetTokens: 1024 },
    );
    const handle = runs.start({ input: "go", ...user });
    // The text block follows the tool_use block, so its first chunk means the call was recorded.
    await firstContent(handle);
    runs.cancel(handle.threadId, { userId: "u1" });
    expect((await handle.done).status).toBe("cancelled");
    expect(await server.outcomes[0]).toBe("client-closed");
    expect(seen).toEqual([]);

    const next = await runs.start({ input: "again", ...user }).done;
    expect(next.status).toBe("completed");
    expect(next.text).toBe("Fresh start.");
    expect(server.rejections.size).toBe(0);
    const body = sent(server, 1);
    const assistant = body.messages[1]?.content ?? [];
    expect(assistant[0]).toEqual({ type: "thinking", thinking: "Plan.", signature: "sig-plan" });
    expect(assistant.find((b) => b.type === "tool_use")?.id).toBe("toolu_04");
    const results = body.messages[2]?.content.filter((b) => b.type === "tool_result") ?? [];
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ tool_use_id: "toolu_04", is_error: true });
    expect(resultText(results[0])).toBe(CANCELLED_RESULT);
  });

  it("cancelling after the first of two tool calls ran closes the second with a cancelled result accepted next turn", async () => {
    let runs!: RunManager;
    const { first, second } = cancelAfterFirstTools(() => runs);
    const made = await managerFor(
      [
        {
          blocks: [
            { type: "tool_use", id: "toolu_a", name: "first", inputJson: ["{}"] },
            { type: "tool_use", id: "toolu_b", name: "second", inputJson: ["{", "}"] },
          ],
        },
        { blocks: [{ type: "text", deltas: ["Next turn."] }] },
      ],
      { tools: [first, second] },
    );
    runs = made.runs;
    expect((await runs.start({ input: "do both", ...user }).done).status).toBe("cancelled");
    const next = await runs.start({ input: "again", ...user }).done;
    expect(next.status).toBe("completed");
    expect(made.server.rejections.size).toBe(0);
    const body = sent(made.server, 1);
    const calls = body.messages[1]?.content.filter((b) => b.type === "tool_use").map((b) => b.id);
    const results = body.messages[2]?.content.filter((b) => b.type === "tool_result") ?? [];
    expect(calls).toEqual(["toolu_a", "toolu_b"]);
    expect(results.map((b) => b.tool_use_id)).toEqual(["toolu_a", "toolu_b"]);
    expect(resultText(results[0])).toBe("first done");
    expect(resultText(results[1])).toBe(CANCELLED_RESULT);
    expect(body.messages[2]?.content.at(-1)).toEqual({ type: "text", text: "again" });
  });
});
