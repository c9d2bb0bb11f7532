// The model table through the bundled `agentsvc start`: a temporary project whose agent points at
// a testkit provider fake (OpenAI, Anthropic, OpenAI-compatible DeepSeek and vLLM), and what a
// client of /agent/invoke and /agent/stream gets for each row. Every documented stream of the
// provider's corpus (packages/testkit/fixtures/providers/) is played through the real server too.
// The rows run side by side in model-providers.test.ts, each with its own server and fake.
import { mkdirSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  ANTHROPIC_TEST_KEY,
  FakeAnthropic,
  FakeGemini,
  FakeOpenAI,
  GEMINI_TEST_KEY,
  loadProviderFixtures,
  OPENAI_TEST_KEY,
  type ProviderFake,
  type RecordedRequest,
  type ScriptedStep,
} from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Served, serveBin } from "./child.js";
import { repoRoot, tempDir, writeFiles } from "./helpers.js";

interface Invoked {
  status: number;
  headers: Headers;
  body: {
    success: boolean;
    status?: string;
    output?: string;
    reasoning?: string;
    toolCalls?: { name: string; arguments: unknown }[];
    finishReason?: string;
    usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
    error?: { code: string; message: string; retryAfterMs?: number; envVar?: string };
  };
}

interface Streamed {
  events: string[];
  text: string;
  reasoning: string;
  error?: { code: string; message: string; retryAfterMs?: number };
  done?: { status?: string; finishReason?: string; usage?: { inputTokens?: number; outputTokens?: number } };
}

let conversations = 0;
const nextConversation = () => `table-${++conversations}`;

async function invoke(
  url: string,
  input: string,
  conversationId = nextConversation(),
  timeoutMs = 15_000,
): Promise<Invoked> {
  const res = await fetch(`${url}/agent/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input, conversationId }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Invoked["body"] };
}

/** Reads /agent/stream to its end: event names in order, the streamed text and reasoning, the error event. */
async function stream(url: string, input: string): Promise<Streamed> {
  const res = await fetch(`${url}/agent/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input, conversationId: nextConversation() }),
    signal: AbortSignal.timeout(15_000),
  });
  const out: Streamed = { events: [], text: "", reasoning: "" };
  for (const block of (await res.text()).split("\n\n")) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
    if (!event) continue;
    out.events.push(event);
    if (event === "chunk") {
      const delta = (JSON.parse(data) as { choices: { delta: { content?: string; reasoning?: string } }[] })
        .choices[0]?.delta;
      out.text += delta?.content ?? "";
      out.reasoning += delta?.reasoning ?? "";
    }
    if (event === "error") out.error = JSON.parse(data) as Streamed["error"];
    // `done` carries {status, finishReason, usage}; before #37 its data was the bare `[DONE]`.
    if (event === "done") out.done = data.startsWith("{") ? (JSON.parse(data) as Streamed["done"]) : {};
  }
  return out;
}

/**
 * Each model attempt's limit on silences (settings.timeoutMs): far above a local answer, short enough
 * for the timeout row. At 1.5 s a row's first answer was sometimes given up under load (18 processes
 * per CPU), and the retry got the fake's default "ok" instead of the scripted answer.
 */
const ATTEMPT_TIMEOUT_MS = 4000;

// A tool the corpus's tool-call streams ask for, so those turns run to their answer.
const WEATHER_TOOL = `{ kind: "tool", name: "get_weather", description: "The weather at a place.",
  input: { type: "json-schema", schema: { type: "object", properties: { location: { type: "string" }, unit: { type: "string" } } } },
  execute: () => ({ forecast: "sunny" }) }`;

interface Row {
  name: string;
  corpus: string;
  start(): Promise<FakeOpenAI | FakeAnthropic | FakeGemini>;
  /** The agent's model (JavaScript source) with model id `id`. */
  model(fake: ProviderFake, id: string): string;
  /** The model id the agent uses; its fallback is `fallback-<id>` on the same fake. */
  id: string;
  /** Lines the agent file starts with (imports for the instance form). */
  prelude?: string;
  env: Record<string, string>;
  /** The variable an auth error names (none for an instance: agentsvc does not know where its key came from). */
  keyVar?: string;
  /** Whether the provider streams reasoning text the client then sees. */
  reasoning: boolean;
  /** Provider packages a project installs itself (not bundled with agentsvc), linked into its node_modules. */
  install?: string[];
  /** The code a client gets for the provider's own mid-stream error (Anthropic's is overloaded_error, OpenAI's server_error). */
  streamErrorCode: string;
}

const rows: Row[] = [
  {
    name: "openai",
    corpus: "openai",
    start: () => FakeOpenAI.start(),
    model: (fake, id) => `{ provider: "openai", model: "${id}", baseURL: ${JSON.stringify(fake.baseURL)} }`,
    id: "gpt-4o-mini",
    env: { OPENAI_API_KEY: OPENAI_TEST_KEY },
    keyVar: "OPENAI_API_KEY",
    reasoning: false,
    streamErrorCode: "model_error",
  },
  {
    name: "anthropic",
    corpus: "anthropic",
    start: () => FakeAnthropic.start(),
    model: (fake, id) =>
      `{ provider: "anthropic", model: "${id}", baseURL: ${JSON.stringify(fake.baseURL)} }`,
    id: "claude-sonnet-4-5",
    env: { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY },
    keyVar: "ANTHROPIC_API_KEY",
    reasoning: true,
    streamErrorCode: "overloaded",
  },
  {
    name: "anthropic with extended thinking",
    corpus: "",
    start: () => FakeAnthropic.start(),
    model: (fake, id) =>
      `{ provider: "anthropic", model: "${id}", baseURL: ${JSON.stringify(fake.baseURL)}, thinkingBudgetTokens: 1024 }`,
    id: "claude-sonnet-4-5",
    env: { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY },
    keyVar: "ANTHROPIC_API_KEY",
    reasoning: true,
    streamErrorCode: "overloaded",
  },
  {
    name: "openai-compatible (DeepSeek reasoning_content)",
    corpus: "openai-compatible",
    start: () => FakeOpenAI.start({ flavor: "deepseek" }),
    model: (fake, id) =>
      `{ provider: "openai-compatible", name: "deepseek", model: "${id}", baseURL: ${JSON.stringify(fake.baseURL)}, apiKeyEnvVar: "DEEPSEEK_API_KEY" }`,
    id: "deepseek-reasoner",
    env: { DEEPSEEK_API_KEY: OPENAI_TEST_KEY },
    keyVar: "DEEPSEEK_API_KEY",
    reasoning: true,
    streamErrorCode: "model_error",
  },
  {
    name: "openai-compatible (vLLM reasoning, no key)",
    corpus: "",
    start: () => FakeOpenAI.start({ flavor: "vllm", apiKey: false }),
    model: (fake, id) =>
      `{ provider: "openai-compatible", name: "vllm", model: "${id}", baseURL: ${JSON.stringify(fake.baseURL)} }`,
    id: "Qwen/Qwen3-8B",
    env: {},
    reasoning: true,
    streamErrorCode: "model_error",
  },
  {
    name: "google (the provider/model string form)",
    corpus: "google",
    start: () => FakeGemini.start(),
    model: (fake, id) => `{ model: "google/${id}", baseURL: ${JSON.stringify(fake.baseURL)} }`,
    id: "gemini-2.5-flash",
    env: { GOOGLE_GENERATIVE_AI_API_KEY: GEMINI_TEST_KEY },
    keyVar: "GOOGLE_GENERATIVE_AI_API_KEY",
    reasoning: true,
    streamErrorCode: "overloaded",
    install: ["@ai-sdk/google"],
  },
  {
    name: "google gemini-3 (a thought signature sent back with each function call)",
    corpus: "",
    start: () => FakeGemini.start(),
    model: (fake, id) => `{ model: "google/${id}", baseURL: ${JSON.stringify(fake.baseURL)} }`,
    id: "gemini-3-flash-preview",
    env: { GOOGLE_GENERATIVE_AI_API_KEY: GEMINI_TEST_KEY },
    keyVar: "GOOGLE_GENERATIVE_AI_API_KEY",
    reasoning: true,
    streamErrorCode: "overloaded",
    install: ["@ai-sdk/google"],
  },
  {
    name: "openai (an AI SDK instance built in the agent file)",
    corpus: "",
    start: () => FakeOpenAI.start(),
    prelude: `import { createOpenAI } from "@ai-sdk/openai";\n`,
    model: (fake, id) =>
      `{ model: createOpenAI({ apiKey: process.env.MY_OPENAI_KEY, baseURL: ${JSON.stringify(fake.baseURL)} }).chat("${id}") }`,
    id: "gpt-4o-mini",
    env: { MY_OPENAI_KEY: OPENAI_TEST_KEY },
    reasoning: false,
    streamErrorCode: "model_error",
    install: ["@ai-sdk/openai"],
  },
];

/** The model a provider request asked for (Gemini names it in the path). */
const modelOf = (request: RecordedRequest) =>
  /\/models\/([^:]+):/.exec(request.url)?.[1] ?? (request.body as { model?: string }).model;

// Where the workspace has a provider package (agent-core's devDependencies), as npm would install it.
const workspacePackage = (name: string) =>
  dirname(
    realpathSync(
      createRequire(join(repoRoot, "packages/agent-core/package.json")).resolve(`${name}/package.json`),
    ),
  );

/**
 * Declares the table's tests. The rows run side by side (each its own server and fake, so a row's
 * tests see only its own requests), the tests of a row one after another: a row is mostly waiting
 * (an attempt's timeout, the route's grace after a client leaves, retry backoffs), and files of one
 * or two rows each held a test slot 20-27 s apiece (#45.6).
 */
export function describeModelRows(): void {
  // Every test below is sequential: a row's tests share its fake's queue of scripted steps.
  const it = test.sequential;
  describe.each(rows)("agentsvc start with a $name model", { concurrent: true }, (row) => {
    let fake: FakeOpenAI | FakeAnthropic | FakeGemini;
    let served: Served;
    let dir: string;

    beforeAll(async () => {
      fake = await row.start();
      dir = writeFiles(tempDir("agentsvc-models-"), {
        // Every form takes settings and fallbacks: a short attempt timeout, and the same provider under another model id.
        "agents/bot.mjs": `${row.prelude ?? ""}const primary = ${row.model(fake, row.id)};
export default { kind: "agent", name: "bot", tools: [${WEATHER_TOOL}],
  model: { ...primary, settings: { timeoutMs: ${ATTEMPT_TIMEOUT_MS} }, fallbacks: [${row.model(fake, `fallback-${row.id}`)}] } };\n`,
        "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      });
      for (const name of row.install ?? []) {
        const target = join(dir, "node_modules", name);
        mkdirSync(dirname(target), { recursive: true });
        symlinkSync(workspacePackage(name), target, "dir");
      }
      served = await serveBin(["start", dir, "--port", "0"], row.env);
      // One turn (the fake's default answer) before the tests: a start's first turn loads the
      // provider's code, seconds with the rows starting together on a loaded machine, which a test's
      // first attempt would count as the provider's silence (then its retry got the default "ok").
      const warm = await invoke(served.url, "warm up", nextConversation(), 90_000);
      expect(warm.status).toBe(200);
    }, 120_000);
    afterAll(async () => {
      await served?.stop();
      await fake?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Runs one client call against the steps queued for it; returns it with the provider requests it made. */
    async function call<T>(
      steps: ScriptedStep[],
      client: () => Promise<T>,
    ): Promise<{ result: T; requests: number }> {
      const before = fake.count;
      fake.discardPending();
      fake.enqueue(...steps);
      const result = await client();
      // Every scripted step was asked for: no call made fewer requests than the row expects.
      expect(fake.discardPending()).toBe(0);
      return { result, requests: fake.count - before };
    }

    it("streams the answer, and the reasoning the provider streams, to /agent/stream in one provider request", async () => {
      const { result, requests } = await call(
        [{ reasoning: ["Think", "ing."], text: ["Hel", "lo ", "there"] }],
        () => stream(served.url, "hi"),
      );
      expect(result.events[0]).toBe("thread");
      expect(result.events.at(-1)).toBe("done");
      expect(result.error).toBeUndefined();
      expect(result.text).toBe("Hello there");
      expect(result.reasoning).toBe(row.reasoning ? "Thinking." : "");
      expect(requests).toBe(1);
    });

    it("answers /agent/invoke with the whole text and reasoning in one provider request", async () => {
      const { result, requests } = await call([{ reasoning: ["Think", "ing."], text: ["Hel", "lo"] }], () =>
        invoke(served.url, "hi"),
      );
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ success: true, status: "completed", output: "Hello" });
      expect(result.body.reasoning ?? "").toBe(row.reasoning ? "Thinking." : "");
      expect(requests).toBe(1);
    });

    it("runs split tool-call arguments through the tool and sends the result back in a history the provider accepts", async () => {
      const { result, requests } = await call(
        [
          // With Anthropic's thinking on, the next request must carry this thinking block and its signature back.
          {
            reasoning: ["Looking it up."],
            toolCalls: [{ name: "get_weather", arguments: ['{"loc', 'ation":"Pa', 'ris"}'] }],
          },
          { text: ["It is sunny in Paris."] },
        ],
        () => invoke(served.url, "weather in Paris?"),
      );
      expect(result.body).toMatchObject({
        success: true,
        status: "completed",
        output: "It is sunny in Paris.",
      });
      expect(result.body.toolCalls).toEqual([
        expect.objectContaining({ name: "get_weather", arguments: { location: "Paris" } }),
      ]);
      expect(requests).toBe(2);
      expect(fake.requests.at(-1)?.status).toBe(200);
    });

    it("answers after a 429 with retry-after-ms: the client sees only the answer, the provider saw two requests", async () => {
      const { result, requests } = await call(
        [{ fault: { kind: "rate_limited", retryAfterMs: 20 } }, { text: ["after the limit"] }],
        () => invoke(served.url, "hi"),
      );
      expect(result.body).toMatchObject({ success: true, status: "completed", output: "after the limit" });
      expect(requests).toBe(2);
    });

    it("answers from the fallback model when the agent's model is still rate limited after its retries", async () => {
      const limited = { fault: { kind: "rate_limited", retryAfterMs: 10 } } as const;
      const { result, requests } = await call(
        [limited, limited, limited, { text: ["from the fallback"] }],
        () => invoke(served.url, "hi"),
      );
      expect(result.body).toMatchObject({ success: true, status: "completed", output: "from the fallback" });
      expect(requests).toBe(4);
      expect(fake.requests.slice(-4).map(modelOf)).toEqual([row.id, row.id, row.id, `fallback-${row.id}`]);
    });

    it("answers a 429 that outlasts every model's retries with HTTP 429, rate_limited, retryAfterMs and Retry-After", async () => {
      const limited = { fault: { kind: "rate_limited", retryAfterMs: 10 } } as const;
      const { result, requests } = await call(Array(6).fill(limited), () => invoke(served.url, "hi"));
      expect(result.status).toBe(429);
      expect(result.body).toMatchObject({
        success: false,
        status: "failed",
        error: { code: "rate_limited" },
      });
      expect(result.body.error?.retryAfterMs).toBeGreaterThan(0);
      expect(result.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(requests).toBe(6);
    });

    it("retries a connection reset before the first token and answers", async () => {
      const { result, requests } = await call(
        [{ text: ["lost"], fault: { kind: "drop", when: "before-first-token" } }, { text: ["answered"] }],
        () => stream(served.url, "hi"),
      );
      expect(result.error).toBeUndefined();
      expect(result.text).toBe("answered");
      expect(requests).toBe(2);
    });

    it("reports a connection reset after streamed text as a failure, without retrying", async () => {
      const { result, requests } = await call(
        [{ text: ["Hel", "lo"], fault: { kind: "drop", when: "after-first-token" } }],
        () => stream(served.url, "hi"),
      );
      expect(result.text).toBe("Hel");
      expect(result.error?.code).toBeDefined();
      expect(result.done?.status).toBe("failed");
      expect(requests).toBe(1);
    });

    it("gives up on a provider silent past settings.timeoutMs, aborting its request, and answers from the retry", async () => {
      const { result, requests } = await call(
        [{ text: ["too late"], headDelayMs: ATTEMPT_TIMEOUT_MS * 4 }, { text: ["in time"] }],
        () => invoke(served.url, "hi"),
      );
      expect(result.body).toMatchObject({ success: true, output: "in time" });
      expect(requests).toBe(2);
      expect(await fake.requests.at(-2)?.outcome).toBe("client-closed");
    });

    it("stops the provider stream when the client leaves /agent/stream", async () => {
      const before = fake.count;
      fake.discardPending();
      fake.enqueue({ text: Array.from({ length: 600 }, (_, i) => `t${i} `), tokenDelayMs: 100 });
      const abort = new AbortController();
      const res = await fetch(`${served.url}/agent/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "a long answer", conversationId: nextConversation() }),
        signal: abort.signal,
      });
      const reader = res.body?.getReader();
      let seen = "";
      while (!seen.includes('"content":"t')) seen += new TextDecoder().decode((await reader?.read())?.value);
      abort.abort();
      // The provider's stream would run 60 s; the run is cancelled after the route's grace (3 s).
      const outcome = await Promise.race([
        fake.requests[before]?.outcome,
        new Promise((resolve) => setTimeout(() => resolve("still streaming after 15 s"), 15_000)),
      ]);
      expect(outcome).toBe("client-closed");
      expect(fake.count - before).toBe(1);
    }, 20_000);

    it("retries an overloaded provider before the first token and answers", async () => {
      const { result, requests } = await call(
        [{ fault: { kind: "overloaded" } }, { text: ["recovered"] }],
        () => stream(served.url, "hi"),
      );
      expect(result.error).toBeUndefined();
      expect(result.text).toBe("recovered");
      expect(requests).toBe(2);
    });

    it("reports an error after streamed text as overloaded, without retrying (the client already has text)", async () => {
      const { result, requests } = await call(
        [{ text: ["Hel", "lo"], fault: { kind: "stream_error", afterTokens: 1 } }],
        () => stream(served.url, "hi"),
      );
      expect(result.text).toBe("Hel");
      expect(result.error?.code).toBe(row.streamErrorCode);
      expect(result.error?.message).not.toMatch(/[{}]/);
      expect(result.events.at(-1)).toBe("done");
      expect(requests).toBe(1);
    });

    it("puts finishReason and usage in the /invoke body and the stream's done event; a length stop shows", async () => {
      const { result } = await call(
        [{ text: ["cut"], finish: "length", usage: { input: 11, output: 7 } }],
        () => invoke(served.url, "hi"),
      );
      expect(result.body).toMatchObject({
        finishReason: "length",
        usage: { inputTokens: 11, outputTokens: 7 },
      });
      const streamed = await call([{ text: ["whole"], usage: { input: 5, output: 3 } }], () =>
        stream(served.url, "hi"),
      );
      expect(streamed.result.done).toMatchObject({
        finishReason: "stop",
        usage: { inputTokens: 5, outputTokens: 3 },
      });
    });

    if (Object.keys(row.env).length > 0)
      it("answers a revoked key as auth, naming the key's variable, with one request per model (no retry)", async () => {
        const key = fake.apiKey;
        fake.apiKey = "revoked-key";
        try {
          const { result, requests } = await call([], () => invoke(served.url, "hi"));
          expect(result.body).toMatchObject({ success: false, error: { code: "auth" } });
          if (row.keyVar) expect(result.body.error?.message).toContain(row.keyVar);
          expect(fake.requests.slice(-requests).map(modelOf)).toEqual([row.id, `fallback-${row.id}`]);
        } finally {
          fake.apiKey = key;
        }
      });

    it("answers a context-length refusal by trying once more without the stored history, and the conversation goes on", async () => {
      const conversation = nextConversation();
      await call([{ text: ["an earlier answer"] }], () =>
        invoke(served.url, "an earlier question", conversation),
      );
      const { result, requests } = await call(
        [{ fault: { kind: "context_length" } }, { text: ["fits now"] }],
        () => invoke(served.url, "a question that overflows", conversation),
      );
      expect(result.body).toMatchObject({ success: true, status: "completed", output: "fits now" });
      expect(requests).toBe(2);
      const [refused, retried] = fake.requests.slice(-2).map((r) => JSON.stringify(r.body));
      expect(refused).toContain("an earlier question");
      expect(retried).not.toContain("an earlier question");
      expect(retried).toContain("a question that overflows");
      const next = await call([{ text: ["still talking"] }], () =>
        invoke(served.url, "and now?", conversation),
      );
      expect(next.result.body).toMatchObject({ success: true, output: "still talking" });
    });

    it("answers context_length with HTTP 422 when even the message alone does not fit", async () => {
      const tooLong = { fault: { kind: "context_length" } } as const;
      const { result } = await call([tooLong], () => invoke(served.url, "a message too long on its own"));
      expect(result.status).toBe(422);
      expect(result.body).toMatchObject({
        success: false,
        status: "failed",
        error: { code: "context_length" },
      });
      expect(result.body.error?.message).not.toMatch(/maximum context length|prompt is too long|[{}]/);
    });

    const corpus = row.corpus ? loadProviderFixtures(row.corpus) : [];
    it.each(corpus.map((f) => [f.file, f] as const))(
      "plays the documented stream %s to the client",
      async (_file, fixture) => {
        const steps: ScriptedStep[] = [{ transcript: fixture.events }];
        // A tool call runs the tool; the next model call (scripted here) answers after it.
        if (fixture.expect.toolCalls) steps.push({ text: ["Sunny."] });
        if (fixture.expect.error) {
          // A stream that fails part-way: the client keeps what was streamed and gets the typed error.
          const { result, requests } = await call(steps, () => stream(served.url, "corpus"));
          expect(result.text).toBe(fixture.expect.text);
          expect(result.error?.code).toBe(fixture.expect.error);
          expect(result.done?.status).toBe("failed");
          expect(requests).toBe(1);
          return;
        }
        const { result } = await call(steps, () => invoke(served.url, "corpus"));
        expect(result.body.success).toBe(true);
        if (!fixture.expect.toolCalls) {
          expect(result.body.finishReason).toBe(fixture.expect.finishReason);
          if (fixture.expect.usage) expect(result.body.usage).toMatchObject(fixture.expect.usage);
        }
        if (fixture.expect.toolCalls) {
          expect(result.body.output?.startsWith(fixture.expect.text)).toBe(true);
          expect(result.body.output?.endsWith("Sunny.")).toBe(true);
        } else expect(result.body.output).toBe(fixture.expect.text);
        if (fixture.expect.reasoning) expect(result.body.reasoning).toBe(fixture.expect.reasoning);
        for (const expected of fixture.expect.toolCalls ?? [])
          expect(result.body.toolCalls).toContainEqual(expect.objectContaining(expected));
      },
    );
  });
}
