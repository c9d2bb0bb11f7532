// Failed model calls through the whole run loop (RunManager, the real @ai-sdk/anthropic provider,
// a local fake Messages API on 127.0.0.1 answering with Anthropic's documented failures):
// retries, typed errors on the turn, interrupted replies, and context overflow recovery.
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineAgent, type MemoryConfig, type Message, type ModelAttempt, RunManager } from "../src/index.js";
import { type FakeAnthropic, type FakeAnthropicReply, startFakeAnthropic } from "./fake-anthropic-server.js";
import { anthropicFault, type Fault } from "./fake-faults.js";
import { type FakeOpenAI, startFakeOpenAI } from "./fake-openai-server.js";
import { collect, contentOf } from "./helpers.js";

const user = { userId: "u1", conversationId: "c1" };

/** Until `check` holds, on the real event loop (a fake clock does not move by itself). */
async function onRealClock(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await new Promise((r) => setImmediate(r));
  }
}
const env = { ANTHROPIC_API_KEY: "sk-ant-test-key" };
let server: FakeAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function managerFor(
  replies: (FakeAnthropicReply | Fault)[],
  options: { maxPromptTokens?: number; memory?: MemoryConfig; history?: Message[] } = {},
) {
  server = await startFakeAnthropic(replies, { maxPromptTokens: options.maxPromptTokens });
  const agent = defineAgent({
    name: "claude",
    instructions: "Be brief.",
    model: { provider: "anthropic", model: "claude-sonnet-4-5", baseURL: server.baseURL },
    memory: options.memory,
  });
  const runs = new RunManager({ agent, env });
  if (options.history) await runs.memory.append(user, options.history);
  return { runs, memory: runs.memory, server };
}

const answer = (...deltas: string[]): FakeAnthropicReply => ({ blocks: [{ type: "text", deltas }] });
type Sent = { messages: { role: string; content: { type: string; text?: string }[] }[] };
const sent = (fake: FakeAnthropic, i: number) => fake.requests[i] as Sent;

describe("a turn whose model call fails", () => {
  it("makes exactly one request when the call succeeds", async () => {
    const { runs, server } = await managerFor([answer("Hi.")]);
    const result = await runs.start({ input: "hello", ...user }).done;
    expect(result).toMatchObject({ status: "completed", text: "Hi." });
    expect(server.requests).toHaveLength(1);
  });

  it("shows a reply cut at the output limit: finishReason length on the result and the last chunk, with usage", async () => {
    const { runs } = await managerFor([
      { blocks: [{ type: "text", deltas: ["Once upon"] }], stopReason: "max_tokens" },
    ]);
    const handle = runs.start({ input: "tell a story", ...user });
    const events = await collect(handle);
    const result = await handle.done;
    expect(result).toMatchObject({ status: "completed", text: "Once upon", finishReason: "length" });
    expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 2 });
    expect(events.at(-1)?.chunk.choices[0].finish_reason).toBe("length");
  });

  it("answers after a 429 with retry-after: exactly two requests, one reply", async () => {
    const { runs, server, memory } = await managerFor([
      anthropicFault.status(429, "rate_limit_error", "Number of requests has exceeded your rate limit", {
        "retry-after": "0",
      }),
      answer("Made ", "it."),
    ]);
    const handle = runs.start({ input: "hello", ...user });
    const events = await collect(handle);
    const result = await handle.done;
    expect(result).toMatchObject({ status: "completed", text: "Made it." });
    expect(contentOf(events)).toBe("Made it.");
    expect(server.requests).toHaveLength(2);
    expect(await memory.load(user)).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "Made it." },
    ]);
  });

  it("answers after a connection reset before the first token", async () => {
    const { runs, server } = await managerFor([anthropicFault.resetAfterStart(), answer("Still here.")]);
    const result = await runs.start({ input: "hello", ...user }).done;
    expect(result).toMatchObject({ status: "completed", text: "Still here." });
    expect(server.requests).toHaveLength(2);
  });

  it("does not retry once a tool call started streaming, and the next turn's history is valid for the provider", async () => {
    const { runs, server } = await managerFor([
      anthropicFault.errorInToolCall("toolu_1", "lookup", '{"q": "ca', "overloaded_error", "Overloaded"),
      answer("Next turn works."),
    ]);
    const handle = runs.start({ input: "look up cats", ...user });
    const events = await collect(handle);
    const result = await handle.done;
    expect(events.some((e) => e.chunk.choices[0].delta.tool_calls)).toBe(true);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("overloaded");
    expect(server.requests).toHaveLength(1);

    server.requests.length = 0;
    const next = await runs.start({ input: "again", ...user }).done;
    expect(next).toMatchObject({ status: "completed", text: "Next turn works." });
    expect(server.rejections.size).toBe(0);
  });

  it("keeps nothing of a failed attempt that streamed nothing (a redacted thinking block) in the retried reply", async () => {
    const { runs, server, memory } = await managerFor([
      anthropicFault.errorAfterRedactedThinking("EncryptedBlob==", "overloaded_error", "Overloaded"),
      answer("Clean."),
    ]);
    const result = await runs.start({ input: "hello", ...user }).done;
    expect(result).toMatchObject({ status: "completed", text: "Clean." });
    expect(server.requests).toHaveLength(2);
    expect(await memory.load(user)).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "Clean." },
    ]);
  });

  it("fails with auth naming the key variable after one request on a 401", async () => {
    const { runs, server } = await managerFor([
      anthropicFault.status(401, "authentication_error", "invalid x-api-key"),
      answer("never"),
    ]);
    const result = await runs.start({ input: "hello", ...user }).done;
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({
      code: "auth",
      message: "The model provider refused the API key (HTTP 401); check ANTHROPIC_API_KEY.",
      detail: "invalid x-api-key",
      envVar: "ANTHROPIC_API_KEY",
      statusCode: 401,
    });
    expect(server.requests).toHaveLength(1);
    expect(result.finishReason).toBe("error");
  });

  it("a cancel while waiting out a retry-after ends the run cancelled at once, with no second request", async () => {
    const { runs, server } = await managerFor([
      anthropicFault.status(429, "rate_limit_error", "slow down", { "retry-after": "30" }),
      answer("never"),
    ]);
    const handle = runs.start({ input: "hello", ...user });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    expect(runs.cancel(handle.threadId, user)).toBe(true);
    const result = await handle.done;
    expect(result.status).toBe("cancelled");
    expect(result.finishReason).toBe("unknown");
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry an error after text streamed: the turn fails with it and the partial reply is stored interrupted", async () => {
    const { runs, server, memory } = await managerFor([
      anthropicFault.errorAfterText(["The answer ", "is"], "overloaded_error", "Overloaded"),
      answer("never sent"),
      answer("Fresh start."),
    ]);
    const handle = runs.start({ input: "question", ...user });
    const events = await collect(handle);
    const result = await handle.done;
    expect(contentOf(events)).toBe("The answer is");
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "overloaded", detail: "Overloaded" });
    expect(result.error?.message).toBe("The model provider is overloaded right now; try again in a moment.");
    expect(server.requests).toHaveLength(1);
    expect(await memory.load(user)).toEqual([
      { role: "user", content: "question" },
      { role: "assistant", content: "The answer is", interrupted: true },
    ]);

    // The next turn replays the cut-off reply with a note, not as a finished answer.
    server.requests.length = 0;
    await runs.start({ input: "again", ...user }).done;
    expect(sent(server, 0).messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "The answer is\n\n(interrupted)" }],
    });
  });
});

describe("context overflow", () => {
  // Forty stored messages of ~400 characters: about 4,000 tokens by the fake's count.
  const history: Message[] = Array.from({ length: 40 }, (_, i) =>
    i % 2 === 0
      ? { role: "user", content: `question ${i}: ${"words ".repeat(65)}` }
      : { role: "assistant", content: `answer ${i}: ${"words ".repeat(65)}` },
  );

  it("leaves the history out of a second request that fits, and the next turn works too", async () => {
    const { runs, server, memory } = await managerFor([answer("Short answer."), answer("Next answer.")], {
      maxPromptTokens: 1000,
      history,
    });
    const result = await runs.start({ input: "and now?", ...user }).done;
    expect(result).toMatchObject({ status: "completed", text: "Short answer." });
    expect(server.requests).toHaveLength(2);
    expect(server.rejections.get(0)).toMatch(/^prompt is too long: \d+ tokens > 1000 maximum$/);
    expect(sent(server, 1).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "and now?" }] },
    ]);
    // Nothing stored was dropped: the window is cut for the call, not the conversation.
    expect(await memory.count(user)).toBe(42);

    const next = await runs.start({ input: "one more", ...user }).done;
    expect(next).toMatchObject({ status: "completed", text: "Next answer." });
  });

  it("compacts the conversation when a summarizer is configured, so later turns fit at once", async () => {
    const { runs, server, memory } = await managerFor([answer("Summarized."), answer("Fits now.")], {
      maxPromptTokens: 1000,
      history,
      memory: { summaryProvider: "demo", summaryModel: "demo" },
    });
    const result = await runs.start({ input: "and now?", ...user }).done;
    expect(result).toMatchObject({ status: "completed", text: "Summarized." });
    expect(server.requests).toHaveLength(2);
    const stored = await memory.load(user);
    expect(stored[0]?.role).toBe("system");
    expect(stored.length).toBeLessThan(10);

    await runs.start({ input: "one more", ...user }).done;
    expect(server.requests).toHaveLength(3);
    expect(server.rejections.size).toBe(1);
  });

  it("fails with a clear context_length when even the turn alone is too long, and the conversation is not stuck", async () => {
    const { runs, server } = await managerFor([answer("Back to normal.")], { maxPromptTokens: 300, history });
    const huge = "x".repeat(2000);
    const result = await runs.start({ input: huge, ...user }).done;
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({
      code: "context_length",
      message: "This conversation is too long for the model; start a new one or clear it.",
      statusCode: 400,
    });
    expect(server.requests).toHaveLength(2);

    const next = await runs.start({ input: "short question", ...user }).done;
    expect(next).toMatchObject({ status: "completed", text: "Back to normal." });
  });
});

describe("settings and fallbacks through the run loop", () => {
  let backup: FakeOpenAI | undefined;
  afterEach(async () => {
    await backup?.close();
    backup = undefined;
  });

  it("answers from the fallback model when the agent's model is overloaded; the reply names only the agent's model", async () => {
    server = await startFakeAnthropic([anthropicFault.status(529, "overloaded_error", "Overloaded")]);
    backup = await startFakeOpenAI([{ deltas: [{ content: "Backup answer." }] }]);
    const attempts: ModelAttempt[] = [];
    const warnings: string[] = [];
    const agent = defineAgent({
      name: "claude",
      model: {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        baseURL: server.baseURL,
        settings: { maxRetries: 0 },
        fallbacks: [{ provider: "openai", model: "gpt-5", baseURL: backup.baseURL }],
      },
    });
    const runs = new RunManager({
      agent,
      env: { ...env, OPENAI_API_KEY: "sk-test" },
      onModelAttempt: (a) => attempts.push(a),
      logger: { info() {}, warn: (_obj, msg) => warnings.push(msg ?? ""), error() {} },
    });
    const handle = runs.start({ input: "hello", ...user });
    const events = await collect(handle);
    expect(await handle.done).toMatchObject({ status: "completed", text: "Backup answer." });
    expect(new Set(events.map((e) => e.chunk.model))).toEqual(new Set(["claude-sonnet-4-5"]));
    expect(server.requests).toHaveLength(1);
    expect(backup.requests).toHaveLength(1);
    expect(attempts).toMatchObject([
      { provider: "anthropic", outcome: "overloaded", fallingBackTo: "gpt-5" },
      { provider: "openai", fallback: 1, outcome: "ok" },
    ]);
    expect(warnings).toEqual(["model call failed; falling back to gpt-5"]);
  });

  it("settings.timeoutMs aborts a silent stream and the retry answers", async () => {
    server = await startFakeAnthropic([anthropicFault.stallAfterStart(), answer("Awake.")]);
    const agent = defineAgent({
      name: "claude",
      model: {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        baseURL: server.baseURL,
        settings: { timeoutMs: 200 },
      },
    });
    // The call's silence timer and the retry's pause on a fake clock the test moves: on the real one
    // a loaded run (load ~50) let 200 ms pass inside the retry's answer too, which then timed out as
    // well (a third request, and no scripted reply left for it).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const attempts: ModelAttempt[] = [];
      const { done } = new RunManager({ agent, env, onModelAttempt: (a) => attempts.push(a) }).start({
        input: "hello",
        ...user,
      });
      await onRealClock(() => server?.requests.length === 1, "the first request");
      await vi.advanceTimersByTimeAsync(200); // no stream part for timeoutMs
      await onRealClock(() => attempts.length === 1, "the timed-out attempt told");
      await vi.advanceTimersByTimeAsync(attempts[0]?.retryInMs as number); // the retry's pause
      const result = await done;
      expect(result).toMatchObject({ status: "completed", text: "Awake." });
      expect(server.requests).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
