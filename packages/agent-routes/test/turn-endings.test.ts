// What a client of the agent route sees when a turn fails or ends: typed errors with a status it
// can act on (/invoke), the same error without the provider's text on /stream and /batch, and the
// turn's finishReason and usage.
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { RunManagerApi, TurnError } from "@agentsvc/agent-core";
import { defineAgent, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes } from "../src/index.js";
import { listen, postJson, readSse } from "./helpers.js";
import { type Ending, scriptedRuns } from "./scripted-runs.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(runs: RunManagerApi): Promise<string> {
  const app = new Hono();
  app.route("/agent", agentRoutes({ runs }));
  const server = await listen(app);
  closers.push(server.close);
  return `${server.url}/agent`;
}

const failed = (error: TurnError): Ending => ({ status: "failed", text: "partial", error });

describe("POST /invoke, a failed turn", () => {
  it.each([
    ["rate_limited", 429],
    ["overloaded", 503],
    ["timeout", 504],
    ["context_length", 422],
    ["auth", 502],
    ["bad_request", 502],
    ["model_error", 502],
    ["max_steps", 500],
  ])("answers %s with HTTP %i and success: false", async (code, status) => {
    const base = await serve(scriptedRuns([failed({ code, message: `ours: ${code}` })]));
    const response = await postJson(`${base}/invoke`, { input: "hi" });
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({
      success: false,
      status: "failed",
      output: "partial",
      error: { code, message: `ours: ${code}` },
    });
  });

  it("tells a rate-limited client when to retry: Retry-After in whole seconds and retryAfterMs", async () => {
    const base = await serve(
      scriptedRuns([failed({ code: "rate_limited", message: "slow down", retryAfterMs: 1200 })]),
    );
    const response = await postJson(`${base}/invoke`, { input: "hi" });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(((await response.json()) as { error: unknown }).error).toEqual({
      code: "rate_limited",
      message: "slow down",
      retryAfterMs: 1200,
    });
  });

  it("keeps the error's detail (the provider's text), statusCode and envVar fields out of the body", async () => {
    const base = await serve(
      scriptedRuns([
        failed({
          code: "auth",
          message: "the model provider refused our key; check OPENAI_API_KEY",
          detail: '{"error":{"message":"Incorrect API key provided: sk-abc***"}}',
          envVar: "OPENAI_API_KEY",
          statusCode: 401,
        }),
      ]),
    );
    const response = await postJson(`${base}/invoke`, { input: "hi" });
    expect(response.status).toBe(502);
    expect(response.headers.get("retry-after")).toBeNull();
    const text = await response.text();
    expect(text).not.toContain("sk-abc");
    expect(JSON.parse(text).error).toEqual({
      code: "auth",
      message: "the model provider refused our key; check OPENAI_API_KEY",
    });
  });

  it("answers a cancelled turn 200 with status cancelled", async () => {
    const base = await serve(scriptedRuns([{ status: "cancelled", text: "half" }]));
    const response = await postJson(`${base}/invoke`, { input: "hi" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, status: "cancelled", output: "half" });
  });

  it("answers a failure of a real model call 502 model_error (the upstream's fault, not the caller's)", async () => {
    const failing: LanguageModelV4 = {
      specificationVersion: "v4",
      provider: "test",
      modelId: "broken",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("unused")),
      doStream: () => Promise.reject(new Error("upstream exploded")),
    };
    const runs = new RunManager({
      agent: defineAgent({ name: "helper", model: { provider: "demo" } }),
      memory: new WindowMemory(),
      model: failing,
    });
    const response = await postJson(`${await serve(runs)}/invoke`, { input: "hi" });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({
      success: false,
      status: "failed",
      error: { code: "model_error" },
    });
  });
});

describe("how a turn ended, on every surface", () => {
  const cut: Ending = {
    status: "completed",
    text: "The answer is cut he",
    finishReason: "length",
    usage: { inputTokens: 12, outputTokens: 30, totalTokens: 42 },
  };

  it("shows a length stop on /invoke as completed with finishReason length and the turn's usage", async () => {
    const base = await serve(scriptedRuns([cut]));
    const response = await postJson(`${base}/invoke`, { input: "hi" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      success: true,
      status: "completed",
      output: "The answer is cut he",
      finishReason: "length",
      usage: { inputTokens: 12, outputTokens: 30, totalTokens: 42 },
    });
  });

  it("ends /stream with a done event that carries status, finishReason and usage", async () => {
    const base = await serve(scriptedRuns([cut]));
    const events = await readSse(await postJson(`${base}/stream`, { input: "hi" }));
    expect(events.map((e) => e.event)).toEqual(["thread", "chunk", "done"]);
    expect(JSON.parse(events.at(-1)!.data)).toEqual({
      status: "completed",
      finishReason: "length",
      usage: { inputTokens: 12, outputTokens: 30, totalTokens: 42 },
    });
  });

  it("sends /stream's error event as {code, message, retryAfterMs}, never the provider's detail", async () => {
    const base = await serve(
      scriptedRuns([
        failed({
          code: "overloaded",
          message: "the model is overloaded; try again in a few seconds",
          detail: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
          retryAfterMs: 5000,
          statusCode: 529,
        }),
      ]),
    );
    const events = await readSse(await postJson(`${base}/stream`, { input: "hi" }));
    expect(events.map((e) => e.event)).toEqual(["thread", "chunk", "error", "done"]);
    expect(JSON.parse(events[2]!.data)).toEqual({
      code: "overloaded",
      message: "the model is overloaded; try again in a few seconds",
      retryAfterMs: 5000,
    });
    expect(JSON.parse(events[3]!.data)).toEqual({ status: "failed" });
  });

  it("gives each /batch row its typed error and ending, and stops at the failure", async () => {
    const base = await serve(
      scriptedRuns([
        { ...cut, text: "one" },
        failed({ code: "rate_limited", message: "slow down", retryAfterMs: 900, detail: "429 Too Many" }),
      ]),
    );
    const response = await postJson(`${base}/batch`, { inputs: ["a", "b", "c"] });
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as { results: unknown[] };
    expect(results).toEqual([
      { input: "a", status: "completed", output: "one", finishReason: "length", usage: cut.usage },
      {
        input: "b",
        status: "failed",
        output: "partial",
        error: { code: "rate_limited", message: "slow down", retryAfterMs: 900 },
      },
      { input: "c", status: "skipped", output: "" },
    ]);
  });
});
