// Honest endings through the real model layer: a Chat Completions server on 127.0.0.1 stops a
// reply at the output limit (`finish_reason: "length"`) after a tool round, and the client sees
// the turn completed, cut (`finishReason: "length"`), with the usage of both model calls summed.
import { defineAgent, defineTool, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { Hono } from "hono";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes } from "../src/index.js";
import { listen, postJson, readSse } from "./helpers.js";
import { type Plan, slowProvider } from "./slow-provider.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A tool round (10 in, 3 out), then an answer cut at the limit (20 in, 5 out). */
const cutAfterTool: Plan[] = [
  {
    words: 0,
    everyMs: 1,
    toolCall: { name: "lookup", arguments: '{"what":"cats"}' },
    usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
  },
  {
    words: 3,
    everyMs: 1,
    finish: "length",
    usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
  },
];

async function serve(plans: Plan[] = cutAfterTool) {
  const provider = await slowProvider(plans);
  closers.push(provider.close);
  const lookup = defineTool({
    name: "lookup",
    description: "Looks something up",
    input: v.object({ what: v.string() }),
    execute: ({ what }) => `found ${what}`,
  });
  const runs = new RunManager({
    agent: defineAgent({
      name: "helper",
      // No retries: the first refusal is the call's (retries have their own tests in agent-core).
      model: {
        provider: "openai-compatible",
        model: "slow-model",
        baseURL: provider.baseURL,
        settings: { maxRetries: 0 },
      },
      tools: [lookup],
    }),
    memory: new WindowMemory(),
  });
  const app = new Hono();
  app.route("/agent", agentRoutes({ runs }));
  const server = await listen(app);
  closers.push(server.close);
  return `${server.url}/agent`;
}

describe("a reply cut at the output limit, after a tool round", () => {
  it("is completed on /invoke with finishReason length and the usage of both calls summed", async () => {
    const response = await postJson(`${await serve()}/invoke`, { input: "tell me about cats" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      success: true,
      status: "completed",
      output: "word0 word1 word2 ",
      finishReason: "length",
      usage: { inputTokens: 30, outputTokens: 8 },
    });
  });

  it("ends /stream with a done event saying the same", async () => {
    const events = await readSse(await postJson(`${await serve()}/stream`, { input: "tell me about cats" }));
    expect(events.at(-1)?.event).toBe("done");
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({
      status: "completed",
      finishReason: "length",
      usage: { inputTokens: 30, outputTokens: 8 },
    });
  });
});

const PROVIDER_TEXT = "Rate limit reached for slow-model in organization org-123 on requests per min (RPM)";
const rateLimited: Plan[] = [
  {
    words: 0,
    everyMs: 1,
    refuse: {
      status: 429,
      headers: { "retry-after": "7" },
      body: { error: { message: PROVIDER_TEXT, type: "requests", param: null, code: "rate_limit_exceeded" } },
    },
  },
];

describe("a provider that rate-limits the call", () => {
  it("answers /invoke 429 with Retry-After and a typed error, without the provider's text", async () => {
    const response = await postJson(`${await serve(rateLimited)}/invoke`, { input: "hi" });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    const text = await response.text();
    expect(text).not.toContain("org-123");
    expect(JSON.parse(text)).toMatchObject({
      success: false,
      status: "failed",
      error: { code: "rate_limited", retryAfterMs: 7000 },
    });
  });

  it("sends the same typed error on /stream", async () => {
    const events = await readSse(await postJson(`${await serve(rateLimited)}/stream`, { input: "hi" }));
    const error = events.find((e) => e.event === "error");
    expect(error?.data).not.toContain("org-123");
    expect(JSON.parse(error!.data)).toMatchObject({ code: "rate_limited", retryAfterMs: 7000 });
    expect(Object.keys(JSON.parse(error!.data)).sort()).toEqual(["code", "message", "retryAfterMs"]);
  });
});
