// Per-model settings reach the provider's request on every model call; usage and finish reasons
// are recorded per call and summed per turn; provider warnings are logged once per model.
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AgentModel,
  defineAgent,
  defineTool,
  InMemoryRunStore,
  RunManager,
  WindowMemory,
} from "../src/index.js";
import { type FakeAnthropic, startFakeAnthropic } from "./fake-anthropic-server.js";
import { type FakeOpenAI, type FakeReply, startFakeOpenAI } from "./fake-openai-server.js";

const user = { userId: "u1", conversationId: "c1" };
let server: FakeOpenAI | undefined;
let anthropic: FakeAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  await anthropic?.close();
  server = undefined;
  anthropic = undefined;
});

const clock = defineTool({
  name: "clock",
  description: "Tells the time",
  input: v.object({}),
  execute: () => "noon",
});

const SETTINGS = {
  maxOutputTokens: 321,
  temperature: 0.25,
  topP: 0.5,
  stopSequences: ["END"],
  headers: { "x-team": "blue" },
  maxRetries: 0,
  timeoutMs: 60_000,
};

// One tool call, then the answer: two model calls in one turn.
const TOOL_THEN_ANSWER: FakeReply[] = [
  {
    deltas: [
      {
        tool_calls: [
          { index: 0, id: "call_1", type: "function", function: { name: "clock", arguments: "{}" } },
        ],
      },
    ],
    finishReason: "tool_calls",
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  },
  {
    deltas: [{ content: "It is noon." }],
    usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 },
  },
];

function managerFor(model: (baseURL: string) => AgentModel, env: Record<string, string> = {}) {
  return async (replies: FakeReply[], logger?: ConstructorParameters<typeof RunManager>[0]["logger"]) => {
    server = await startFakeOpenAI(replies);
    const agent = defineAgent({ name: "set", model: model(server.baseURL), tools: [clock] });
    return new RunManager({ agent, memory: new WindowMemory(), env, ...(logger ? { logger } : {}) });
  };
}

describe("model settings reach the provider request body of every call", () => {
  const cases: [string, (baseURL: string) => AgentModel, Record<string, string>, string][] = [
    [
      '"openai/..." with a baseURL (Chat Completions)',
      (baseURL) => ({
        model: "openai/gpt-4o",
        baseURL,
        settings: { ...SETTINGS, providerOptions: { openai: { user: "u-42" } } },
      }),
      { OPENAI_API_KEY: "sk-openai" },
      "Bearer sk-openai",
    ],
    [
      '"openrouter/..." (OpenAI-compatible, its own key variable)',
      (baseURL) => ({ model: "openrouter/meta-llama/llama-3.3-70b-instruct", baseURL, settings: SETTINGS }),
      { OPENROUTER_API_KEY: "sk-or" },
      "Bearer sk-or",
    ],
    [
      "an openai-compatible spec object",
      (baseURL) => ({
        provider: "openai-compatible",
        model: "fake-model",
        baseURL,
        apiKeyEnvVar: "MY_KEY",
        settings: SETTINGS,
      }),
      { MY_KEY: "sk-mine" },
      "Bearer sk-mine",
    ],
  ];
  for (const [name, model, env, authorization] of cases) {
    it(name, async () => {
      const runs = await managerFor(model, env)(TOOL_THEN_ANSWER);
      const result = await runs.start({ input: "what time is it?", ...user }).done;
      expect(result.status).toBe("completed");
      const sent = server!.requests;
      expect(sent).toHaveLength(2);
      for (const [i, body] of sent.entries()) {
        expect(body).toMatchObject({ temperature: 0.25, top_p: 0.5, stop: ["END"], max_tokens: 321 });
        expect(server!.headers[i]?.["x-team"]).toBe("blue");
        expect(server!.authorizations[i]).toBe(authorization);
      }
      if (name.startsWith('"openai/')) expect(sent[0]).toMatchObject({ user: "u-42" });
    });
  }

  it('"anthropic/..." (Messages API): max_tokens, temperature, stop_sequences, and a thinking budget merged into its options', async () => {
    anthropic = await startFakeAnthropic([
      { blocks: [{ type: "text", deltas: ["One."] }] },
      { blocks: [{ type: "text", deltas: ["Two."] }] },
    ]);
    const env = { ANTHROPIC_API_KEY: "sk-ant" };
    const plain = defineAgent({
      name: "claude",
      model: {
        model: "anthropic/claude-sonnet-4-5",
        baseURL: anthropic.baseURL,
        settings: {
          maxOutputTokens: 500,
          temperature: 0.5,
          stopSequences: ["END"],
          headers: { "x-team": "blue" },
        },
      },
    });
    await new RunManager({ agent: plain, env }).start({ input: "hi", ...user }).done;
    expect(anthropic.requests[0]).toMatchObject({
      max_tokens: 500,
      temperature: 0.5,
      stop_sequences: ["END"],
    });
    expect(anthropic.headers[0]?.apiKey).toBe("sk-ant");
    const thinking = defineAgent({
      name: "thinker",
      model: {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        baseURL: anthropic.baseURL,
        thinkingBudgetTokens: 2048,
        settings: { maxOutputTokens: 500 },
      },
    });
    await new RunManager({ agent: thinking, env }).start({ input: "hi", ...user }).done;
    // @ai-sdk/anthropic adds the budget to max_tokens (the API wants budget < max_tokens).
    expect(anthropic.requests[1]).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 2048 },
      max_tokens: 2548,
    });
  });

  it("leaves out what no setting names (the provider's defaults hold)", async () => {
    const runs = await managerFor((baseURL) => ({
      provider: "openai-compatible",
      model: "fake-model",
      baseURL,
    }))(TOOL_THEN_ANSWER);
    await runs.start({ input: "what time is it?", ...user }).done;
    for (const body of server!.requests) {
      for (const key of ["temperature", "top_p", "stop", "max_tokens"]) expect(body).not.toHaveProperty(key);
    }
  });
});

describe("finish reasons and usage", () => {
  const compatible = (baseURL: string): AgentModel => ({
    provider: "openai-compatible",
    model: "fake-model",
    baseURL,
  });

  it("sums the usage of every model call of the turn and reports the last call's finish reason", async () => {
    const runs = await managerFor(compatible)(TOOL_THEN_ANSWER);
    const result = await runs.start({ input: "what time is it?", ...user }).done;
    expect(result.finishReason).toBe("stop");
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: 12, totalTokens: 42 });
  });

  it("reports a reply cut at the output limit as finishReason length", async () => {
    const runs = await managerFor(compatible)([
      {
        deltas: [{ content: "The answer is" }],
        finishReason: "length",
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      },
    ]);
    const result = await runs.start({ input: "tell me everything", ...user }).done;
    expect(result.text).toBe("The answer is");
    expect(result.finishReason).toBe("length");
    expect(result.usage).toMatchObject({ inputTokens: 3, outputTokens: 4, totalTokens: 7 });
  });
});

describe("usage across an approval", () => {
  it("counts the calls before the suspension in the continued turn, also after a restart", async () => {
    server = await startFakeOpenAI(TOOL_THEN_ANSWER);
    const gated = defineTool({ ...clock, needsApproval: true });
    const agent = defineAgent({
      name: "gated",
      model: { provider: "openai-compatible", model: "fake-model", baseURL: server.baseURL },
      tools: [gated],
    });
    const runStore = new InMemoryRunStore();
    const before = await new RunManager({ agent, runStore, memory: new WindowMemory() }).start({
      input: "what time is it?",
      threadId: "t-usage",
      ...user,
    }).done;
    expect(before.status).toBe("suspended");
    expect(before.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    // A new process on the same run store decides it.
    const restarted = new RunManager({ agent, runStore, memory: new WindowMemory() });
    await restarted.ready();
    const handle = await restarted.resume("t-usage", { decision: "approve" }, { userId: user.userId });
    const after = await handle.done;
    expect(after.status).toBe("completed");
    expect(after.usage).toMatchObject({ inputTokens: 30, outputTokens: 12, totalTokens: 42 });
  });
});

describe("provider warnings", () => {
  it("are logged once per model, not on every call", async () => {
    const warnings: object[] = [];
    const logger = {
      info() {},
      error() {},
      warn: (obj: object, msg?: string) => void (msg === "the model reported warnings" && warnings.push(obj)),
    };
    // A reasoning model takes no temperature: @ai-sdk/openai drops it and warns.
    const runs = await managerFor(
      (baseURL) => ({ model: "openai/o3-mini", baseURL, settings: { temperature: 0.3 } }),
      { OPENAI_API_KEY: "sk-openai" },
    )([...TOOL_THEN_ANSWER, { deltas: [{ content: "Again." }] }], logger);
    await runs.start({ input: "what time is it?", ...user }).done;
    await runs.start({ input: "and now?", ...user }).done;
    expect(server!.requests).toHaveLength(3);
    expect(server!.requests[0]).not.toHaveProperty("temperature");
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain("temperature");
  });
});
