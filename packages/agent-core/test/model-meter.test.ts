// The meter a server sets around a run (withMeter): asked before every model call, told every
// attempt's usage. Through the whole run loop with the real @ai-sdk/anthropic provider against the
// local fake Messages API.
import { afterEach, describe, expect, it } from "vitest";
import * as v from "valibot";
import {
  defineAgent,
  defineTool,
  type MeteredCall,
  type MeterKind,
  type ModelMeter,
  RunManager,
  type TurnError,
  withMeter,
} from "../src/index.js";
import { type FakeAnthropic, type FakeAnthropicReply, startFakeAnthropic } from "./fake-anthropic-server.js";
import { anthropicFault, type Fault } from "./fake-faults.js";

const user = { userId: "u1", conversationId: "c1" };
const scope = { agent: "claude", ...user };
let server: FakeAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const BUDGET: TurnError = {
  code: "budget_exceeded",
  message: "The daily budget is spent.",
  retryAfterMs: 1000,
  resetsAt: "2026-12-02T00:00:00.000Z",
};

/** Records every call; refuses from the `refuseFrom`-th admission on (1-based). */
function meter(refuseFrom = Number.POSITIVE_INFINITY) {
  const calls: MeteredCall[] = [];
  const asked: MeterKind[] = [];
  const m: ModelMeter = {
    async admit(_scope, kind) {
      asked.push(kind);
      return asked.length >= refuseFrom ? BUDGET : undefined;
    },
    record(call) {
      calls.push(call);
    },
  };
  return { m, calls, asked };
}

async function managerFor(replies: (FakeAnthropicReply | Fault)[]) {
  server = await startFakeAnthropic(replies);
  const agent = defineAgent({
    name: "claude",
    instructions: "Be brief.",
    model: { provider: "anthropic", model: "claude-sonnet-4-5", baseURL: server.baseURL },
    tools: [
      defineTool({
        name: "lookup",
        description: "Looks something up.",
        input: v.object({ q: v.string() }),
        execute: async () => "found",
      }),
    ],
  });
  return new RunManager({ agent, env: { ANTHROPIC_API_KEY: "sk-ant-test-key" } });
}

const answer = (...deltas: string[]): FakeAnthropicReply => ({ blocks: [{ type: "text", deltas }] });
const toolUse: FakeAnthropicReply = {
  blocks: [{ type: "tool_use", id: "toolu_1", name: "lookup", inputJson: ['{"q":"x"}'] }],
};

describe("a run with a meter", () => {
  it("records every attempt (a refused 429 one too) with what the provider reported; the sums equal the turn's usage", async () => {
    const runs = await managerFor([
      anthropicFault.status(429, "rate_limit_error", "slow down", { "retry-after": "0" }),
      toolUse,
      answer("Done."),
    ]);
    const { m, calls, asked } = meter();
    const result = await withMeter(m, scope, () => runs.start({ input: "hello", ...user })).done;
    expect(result.status).toBe("completed");
    expect(asked).toEqual(["turn", "turn"]);
    expect(calls.map((c) => [c.kind, c.provider, c.modelId, c.outcome])).toEqual([
      ["turn", "anthropic", "claude-sonnet-4-5", "rate_limited"],
      ["turn", "anthropic", "claude-sonnet-4-5", "ok"],
      ["turn", "anthropic", "claude-sonnet-4-5", "ok"],
    ]);
    expect(calls[0]?.usage).toEqual({});
    const sum = (key: "inputTokens" | "outputTokens") => calls.reduce((n, c) => n + (c.usage[key] ?? 0), 0);
    expect(sum("inputTokens")).toBe(result.usage?.inputTokens);
    expect(sum("outputTokens")).toBe(result.usage?.outputTokens);
    expect(sum("inputTokens")).toBeGreaterThan(0);
    expect(calls.every((c) => c.scope.userId === "u1" && c.scope.conversationId === "c1")).toBe(true);
  });

  it("a refusal before the turn's second model call ends the turn budget_exceeded: no request made, the tool result kept, history valid", async () => {
    const runs = await managerFor([toolUse, answer("never sent")]);
    const { m } = meter(2);
    const result = await withMeter(m, scope, () => runs.start({ input: "hello", ...user })).done;
    expect(result.status).toBe("failed");
    expect(result.error).toEqual(BUDGET);
    expect(server?.requests).toHaveLength(1);
    const stored = await runs.memory.load(user);
    expect(stored.map((s) => s.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("a refusal before the first call makes no request and stores only the user's message", async () => {
    const runs = await managerFor([answer("never sent")]);
    const { m } = meter(1);
    const result = await withMeter(m, scope, () => runs.start({ input: "hello", ...user })).done;
    expect(result).toMatchObject({ status: "failed", error: { code: "budget_exceeded" }, text: "" });
    expect(server?.requests).toHaveLength(0);
    expect((await runs.memory.load(user)).map((m) => m.role)).toEqual(["user"]);
  });
});
