// The model-call wrapper against the real @ai-sdk/anthropic and @ai-sdk/openai providers talking
// HTTP to local fakes on 127.0.0.1 that answer with the providers' documented failures.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { afterEach, describe, expect, it } from "vitest";
import type { TurnError } from "../src/model-error.js";
import { type AttemptScope, callModel, type ModelAttempt, type ModelCandidate } from "../src/model-call.js";
import { ModelCallError } from "../src/model-errors.js";
import type { RetryPolicy } from "../src/model-retry.js";
import { type FakeAnthropic, type FakeAnthropicReply, startFakeAnthropic } from "./fake-anthropic-server.js";
import { anthropicFault, type Fault, geminiFault, openaiFault, startScriptedServer } from "./fake-faults.js";
import { type FakeOpenAI, type FakeReply, startFakeOpenAI } from "./fake-openai-server.js";

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// Pauses of 1-2 ms keep the backoff real but the suite quick.
const FAST: Partial<RetryPolicy> = { initialDelayMs: 1, random: () => 0.5 };

async function anthropicServer(replies: (FakeAnthropicReply | Fault)[]) {
  const server = await startFakeAnthropic(replies);
  servers.push(server);
  return server;
}

async function openaiServer(replies: (FakeReply | Fault)[]) {
  const server = await startFakeOpenAI(replies);
  servers.push(server);
  return server;
}

function claude(server: FakeAnthropic, settings: ModelCandidate["settings"] = {}): ModelCandidate {
  const model = createAnthropic({ baseURL: server.baseURL, apiKey: "sk-ant-test" }).languageModel(
    "claude-sonnet-4-5",
  );
  return { model, provider: "anthropic", settings, apiKeyEnvVar: "ANTHROPIC_API_KEY" };
}

function gpt(server: FakeOpenAI, settings: ModelCandidate["settings"] = {}): ModelCandidate {
  const model = createOpenAI({ baseURL: server.baseURL, apiKey: "sk-test" }).chat("gpt-5");
  return { model, provider: "openai", settings, apiKeyEnvVar: "OPENAI_API_KEY" };
}

const answer = (text: string): FakeAnthropicReply => ({ blocks: [{ type: "text", deltas: [text] }] });

/** Calls through the wrapper with a body that reads the stream as the run loop does. */
async function call(primary: ModelCandidate, options: { signal?: AbortSignal } = {}) {
  const attempts: ModelAttempt[] = [];
  let streamed = false;
  const body = async (scope: AttemptScope) => {
    const { stream } = await scope.model.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      abortSignal: scope.signal,
    });
    let text = "";
    const reader = stream.getReader();
    while (true) {
      const next = await reader.read();
      if (next.done) break;
      scope.alive();
      if (next.value.type === "text-delta") {
        streamed = true;
        text += next.value.delta;
      }
      if (next.value.type === "error") throw next.value.error;
    }
    return text;
  };
  try {
    const { value, candidate } = await callModel({
      primary,
      signal: options.signal ?? new AbortController().signal,
      attempt: body,
      streamed: () => streamed,
      onAttempt: (a) => attempts.push(a),
      policy: FAST,
    });
    return {
      text: value,
      model: candidate.model.modelId,
      attempts,
      error: undefined as TurnError | undefined,
    };
  } catch (error) {
    if (!(error instanceof ModelCallError)) throw error;
    return { text: undefined, model: undefined, attempts, error: error.error };
  }
}

describe("model calls: retries", () => {
  it("a success makes exactly one request", async () => {
    const server = await anthropicServer([answer("Hello.")]);
    const result = await call(claude(server));
    expect(result.text).toBe("Hello.");
    expect(server.requests).toHaveLength(1);
    expect(result.attempts.map((a) => a.outcome)).toEqual(["ok"]);
  });

  it("a 429 with retry-after-ms is retried after that wait: exactly two requests and the answer", async () => {
    const server = await openaiServer([
      openaiFault.status(
        429,
        { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" },
        { "retry-after-ms": "40", "retry-after": "1" },
      ),
      { deltas: [{ role: "assistant", content: "Fine." }] },
    ]);
    const result = await call(gpt(server));
    expect(result.text).toBe("Fine.");
    expect(server.requests).toHaveLength(2);
    expect(result.attempts).toMatchObject([
      { attempt: 1, outcome: "rate_limited", retryInMs: 40, error: { retryAfterMs: 40, statusCode: 429 } },
      { attempt: 2, outcome: "ok" },
    ]);
  });

  it("a 429 with retry-after in seconds waits that long (the header, not the backoff)", async () => {
    const server = await anthropicServer([
      anthropicFault.status(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
        {
          "retry-after": "0",
        },
      ),
      answer("Later."),
    ]);
    const result = await call(claude(server));
    expect(result.text).toBe("Later.");
    expect(server.requests).toHaveLength(2);
    expect(result.attempts[0]).toMatchObject({ outcome: "rate_limited", retryInMs: 0 });
  });

  it("a retry-after beyond the 60 s cap gives up at once with rate_limited and retryAfterMs", async () => {
    const server = await anthropicServer([
      anthropicFault.status(429, "rate_limit_error", "rate limited", { "retry-after": "600" }),
      answer("never"),
    ]);
    const result = await call(claude(server));
    expect(server.requests).toHaveLength(1);
    expect(result.error).toMatchObject({ code: "rate_limited", retryAfterMs: 600_000, statusCode: 429 });
    expect(result.error?.message).toBe("The model provider is rate limiting requests; try again in 600 s.");
  });

  it("a 529 overloaded_error is retried", async () => {
    const server = await anthropicServer([
      anthropicFault.status(529, "overloaded_error", "Overloaded"),
      answer("Back."),
    ]);
    const result = await call(claude(server));
    expect(result.text).toBe("Back.");
    expect(server.requests).toHaveLength(2);
    expect(result.attempts[0]).toMatchObject({
      outcome: "overloaded",
      error: { statusCode: 529, detail: "Overloaded" },
    });
  });

  it("an overloaded_error SSE event before any text is retried", async () => {
    const server = await anthropicServer([
      anthropicFault.errorBeforeText("overloaded_error", "Overloaded"),
      answer("Ok."),
    ]);
    const result = await call(claude(server));
    expect(result.text).toBe("Ok.");
    expect(server.requests).toHaveLength(2);
    expect(result.attempts[0]?.outcome).toBe("overloaded");
  });

  it("500s are retried twice by default, then the call fails with model_error", async () => {
    const server = await anthropicServer([
      anthropicFault.status(500, "api_error", "Internal server error"),
      anthropicFault.status(500, "api_error", "Internal server error"),
      anthropicFault.status(500, "api_error", "Internal server error"),
      answer("too late"),
    ]);
    const result = await call(claude(server));
    expect(server.requests).toHaveLength(3);
    expect(result.error).toMatchObject({ code: "model_error", statusCode: 500 });
    expect(result.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
  });

  it("settings.maxRetries: 0 makes a retryable failure final at the first attempt", async () => {
    const server = await anthropicServer([
      anthropicFault.status(503, "api_error", "unavailable"),
      answer("no"),
    ]);
    const result = await call(claude(server, { maxRetries: 0 }));
    expect(server.requests).toHaveLength(1);
    expect(result.error?.code).toBe("overloaded");
  });

  it("a 401 is auth naming the key variable, after one request", async () => {
    const server = await anthropicServer([
      anthropicFault.status(401, "authentication_error", "invalid x-api-key"),
      answer("no"),
    ]);
    const result = await call(claude(server));
    expect(server.requests).toHaveLength(1);
    expect(result.error).toEqual({
      code: "auth",
      message: "The model provider refused the API key (HTTP 401); check ANTHROPIC_API_KEY.",
      detail: "invalid x-api-key",
      envVar: "ANTHROPIC_API_KEY",
      statusCode: 401,
    });
  });

  it("an OpenAI 429 insufficient_quota is not retried (waiting does not refill a quota)", async () => {
    const server = await openaiServer([
      openaiFault.status(429, {
        message: "You exceeded your current quota, please check your plan and billing details.",
        type: "insufficient_quota",
        code: "insufficient_quota",
      }),
      { deltas: [{ content: "no" }] },
    ]);
    const result = await call(gpt(server));
    expect(server.requests).toHaveLength(1);
    expect(result.error).toMatchObject({ code: "rate_limited", statusCode: 429 });
    expect(result.error?.retryAfterMs).toBeUndefined();
  });

  it("a connection reset before the first token is retried", async () => {
    const server = await anthropicServer([anthropicFault.resetAfterStart(), answer("Again.")]);
    const result = await call(claude(server));
    expect(result.text).toBe("Again.");
    expect(server.requests).toHaveLength(2);
    expect(result.attempts[0]?.outcome).toBe("model_error");
  });

  it("an unreadable stream event before any text is retried", async () => {
    const server = await anthropicServer([
      {
        fault: "sse",
        frames: [
          'event: message_start\ndata: {"type": "message_start", "message": {"id": "msg_1", "type": "mess\n\n',
        ],
        ending: "end",
      },
      answer("Readable."),
    ]);
    const result = await call(claude(server));
    expect(result.text).toBe("Readable.");
    expect(server.requests).toHaveLength(2);
    expect(result.attempts[0]?.error?.message).toBe(
      "The model provider sent a reply that could not be read.",
    );
  });

  it("a connection dropped before the response head is retried", async () => {
    const server = await openaiServer([{ fault: "reset" }, { deltas: [{ content: "Up." }] }]);
    const result = await call(gpt(server));
    expect(result.text).toBe("Up.");
    expect(server.requests).toHaveLength(2);
  });

  it("an error after text has streamed is not retried: the call fails with it", async () => {
    const server = await anthropicServer([
      anthropicFault.errorAfterText(["Half an ", "answer"], "overloaded_error", "Overloaded"),
      answer("never sent"),
    ]);
    const result = await call(claude(server));
    expect(server.requests).toHaveLength(1);
    expect(result.error).toMatchObject({ code: "overloaded", detail: "Overloaded" });
    expect(result.error?.message).not.toContain("{");
  });

  it("a stream silent for longer than timeoutMs is aborted as timeout and retried", async () => {
    const server = await anthropicServer([anthropicFault.stallAfterStart(), answer("Awake.")]);
    const result = await call(claude(server, { timeoutMs: 150 }));
    expect(result.text).toBe("Awake.");
    expect(server.requests).toHaveLength(2);
    expect(result.attempts[0]).toMatchObject({ outcome: "timeout" });
    expect(await server.outcomes[0]).toBe("rejected");
  });

  it("a cancel during a backoff pause ends the call as cancelled without another request", async () => {
    const server = await anthropicServer([
      anthropicFault.status(429, "rate_limit_error", "slow down", { "retry-after": "30" }),
      answer("no"),
    ]);
    const controller = new AbortController();
    const pending = call(claude(server), { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const result = await pending;
    expect(result.error?.code).toBe("cancelled");
    expect(server.requests).toHaveLength(1);
  });
});

describe("model calls: fallbacks", () => {
  it("the fallback model answers when the agent's model has spent its retries", async () => {
    const primary = await anthropicServer([
      anthropicFault.status(529, "overloaded_error", "Overloaded"),
      anthropicFault.status(529, "overloaded_error", "Overloaded"),
      anthropicFault.status(529, "overloaded_error", "Overloaded"),
    ]);
    const backup = await openaiServer([{ deltas: [{ content: "From the fallback." }] }]);
    const result = await call({ ...claude(primary), fallbacks: [gpt(backup)] });
    expect(result.text).toBe("From the fallback.");
    expect(result.model).toBe("gpt-5");
    expect(primary.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(1);
    expect(result.attempts).toMatchObject([
      { provider: "anthropic", attempt: 1, outcome: "overloaded" },
      { provider: "anthropic", attempt: 2, outcome: "overloaded" },
      { provider: "anthropic", attempt: 3, outcome: "overloaded", fallingBackTo: "gpt-5" },
      { provider: "openai", attempt: 1, fallback: 1, outcome: "ok" },
    ]);
  });

  it("an auth refusal goes to the fallback at once", async () => {
    const primary = await anthropicServer([
      anthropicFault.status(401, "authentication_error", "invalid x-api-key"),
    ]);
    const backup = await openaiServer([{ deltas: [{ content: "Covered." }] }]);
    const result = await call({ ...claude(primary), fallbacks: [gpt(backup)] });
    expect(result.text).toBe("Covered.");
    expect(primary.requests).toHaveLength(1);
  });

  it("a context_length refusal does not go to the fallback (the history is the problem)", async () => {
    const primary = await openaiServer([
      openaiFault.status(400, {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      }),
    ]);
    const backup = await anthropicServer([answer("unused")]);
    const result = await call({ ...gpt(primary), fallbacks: [claude(backup)] });
    expect(result.error).toMatchObject({ code: "context_length", statusCode: 400 });
    expect(result.error?.message).toBe(
      "This conversation is too long for the model; start a new one or clear it.",
    );
    expect(backup.requests).toHaveLength(0);
  });

  it("a failure after text has streamed does not go to the fallback", async () => {
    const primary = await anthropicServer([
      anthropicFault.errorAfterText(["Par"], "api_error", "Internal error"),
    ]);
    const backup = await openaiServer([{ deltas: [{ content: "unused" }] }]);
    const result = await call({ ...claude(primary), fallbacks: [gpt(backup)] });
    expect(result.error?.code).toBe("model_error");
    expect(backup.requests).toHaveLength(0);
  });
});

describe("model calls: Gemini (the real @ai-sdk/google provider)", () => {
  async function gemini(responses: Fault[]) {
    const server = await startScriptedServer(responses);
    servers.push(server);
    const model = createGoogleGenerativeAI({
      baseURL: `${server.origin}/v1beta`,
      apiKey: "g-test",
    }).languageModel("gemini-2.5-flash");
    return { server, candidate: { model, provider: "google", apiKeyEnvVar: "GOOGLE_GENERATIVE_AI_API_KEY" } };
  }

  it("a 429 RESOURCE_EXHAUSTED waits the body's RetryInfo delay and is retried", async () => {
    const { server, candidate } = await gemini([
      geminiFault.status(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
        [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "0s" }],
      ),
      geminiFault.answer("Gemini here."),
    ]);
    const result = await call(candidate);
    expect(result.text).toBe("Gemini here.");
    expect(server.requests).toHaveLength(2);
    expect(result.attempts[0]).toMatchObject({ outcome: "rate_limited", retryInMs: 0 });
  });

  it("a bad key (400 INVALID_ARGUMENT, API_KEY_INVALID) is auth naming the variable, not retried", async () => {
    const { server, candidate } = await gemini([
      geminiFault.status(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" },
      ]),
    ]);
    const result = await call(candidate);
    expect(result.error).toMatchObject({
      code: "auth",
      envVar: "GOOGLE_GENERATIVE_AI_API_KEY",
      statusCode: 400,
    });
    expect(server.requests).toHaveLength(1);
  });

  it("an input token count over the limit is context_length", async () => {
    const { candidate } = await gemini([
      geminiFault.status(
        400,
        "INVALID_ARGUMENT",
        "The input token count (1048990) exceeds the maximum number of tokens allowed (1048576).",
      ),
    ]);
    expect((await call(candidate)).error?.code).toBe("context_length");
  });

  it("an UNAVAILABLE error event after text is overloaded and not retried", async () => {
    const { server, candidate } = await gemini([
      geminiFault.errorAfterText("Half"),
      geminiFault.answer("no"),
    ]);
    const result = await call(candidate);
    expect(result.error).toMatchObject({ code: "overloaded", statusCode: 503 });
    expect(server.requests).toHaveLength(1);
  });
});

describe("model calls: error chunks of OpenAI and OpenAI-compatible streams", () => {
  const sse = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const answer = (text: string): Fault => ({
    fault: "sse",
    frames: [chunk({ role: "assistant", content: text }), chunk({}, "stop"), "data: [DONE]\n\n"],
    ending: "end",
  });
  // vLLM and other compatible servers send an error object as a data chunk mid-stream
  // (https://platform.openai.com/docs/api-reference/chat/streaming has no error event of its own).
  const errorChunk = sse({
    error: {
      message: "The server had an error while processing your request.",
      type: "server_error",
      code: 500,
    },
  });

  async function compatible(responses: Fault[]) {
    const server = await startScriptedServer(responses);
    servers.push(server);
    const model = createOpenAICompatible({ name: "vllm", baseURL: `${server.origin}/v1` }).chatModel("qwen");
    return { server, candidate: { model, provider: "openai-compatible" } };
  }

  it("an error chunk before any text is retried", async () => {
    const { server, candidate } = await compatible([
      { fault: "sse", frames: [errorChunk], ending: "end" },
      answer("Recovered."),
    ]);
    const result = await call(candidate);
    expect(result.text).toBe("Recovered.");
    expect(server.requests).toHaveLength(2);
    expect(result.attempts[0]).toMatchObject({ outcome: "model_error", error: { statusCode: 500 } });
  });

  it("an error chunk after text fails the call with model_error, the provider's text as detail", async () => {
    const { server, candidate } = await compatible([
      { fault: "sse", frames: [chunk({ role: "assistant", content: "Partial" }), errorChunk], ending: "end" },
      answer("never"),
    ]);
    const result = await call(candidate);
    expect(result.error).toMatchObject({
      code: "model_error",
      detail: "The server had an error while processing your request.",
    });
    expect(server.requests).toHaveLength(1);
  });

  it("an unreadable chunk before any text is retried", async () => {
    const { server, candidate } = await compatible([
      {
        fault: "sse",
        frames: ['data: {"id": "chatcmpl-1", "choices": [{"delta": {"content": "Hel\n\n'],
        ending: "end",
      },
      answer("Whole."),
    ]);
    const result = await call(candidate);
    expect(result.text).toBe("Whole.");
    expect(server.requests).toHaveLength(2);
  });

  it("OpenAI's own error frame before any output is retried", async () => {
    const server = await startScriptedServer([
      {
        fault: "sse",
        frames: [
          sse({
            error: { message: "The server had an error", type: "server_error", code: null, param: null },
          }),
        ],
        ending: "end",
      },
      answer("Second time."),
    ]);
    servers.push(server);
    const model = createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: "sk-test" }).chat("gpt-5");
    const result = await call({ model, provider: "openai" });
    expect(result.text).toBe("Second time.");
    expect(server.requests).toHaveLength(2);
  });
});
