import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AnyTool,
  CANCELLED_RESULT,
  defineAgent,
  defineTool,
  RunManager,
  WindowMemory,
} from "../src/index.js";
import { type FakeOpenAI, type FakeReply, startFakeOpenAI } from "./fake-openai-server.js";
import { cancelAfterFirstTools, collect, contentOf, firstContent, reasoningOf } from "./helpers.js";

const user = { userId: "u1", conversationId: "c1" };
let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function managerFor(replies: FakeReply[], tools: AnyTool[] = []) {
  server = await startFakeOpenAI(replies);
  const memory = new WindowMemory();
  const agent = defineAgent({
    name: "real",
    instructions: "Be brief.",
    model: { provider: "openai-compatible", model: "fake-model", baseURL: server.baseURL },
    tools,
  });
  return { runs: new RunManager({ agent, memory }), memory, server };
}

type Sent = {
  messages: {
    role: string;
    content?: unknown;
    reasoning_content?: string;
    tool_calls?: { id: string }[];
    tool_call_id?: string;
  }[];
};

describe("openai-compatible provider against a local fake server", () => {
  for (const field of ["reasoning_content", "reasoning"]) {
    it(`normalizes ${field} into delta.reasoning and sends it back on the next turn`, async () => {
      const { runs, memory, server } = await managerFor([
        {
          deltas: [{ role: "assistant", [field]: "Thinking " }, { [field]: "hard." }, { content: "Answer." }],
        },
        { deltas: [{ content: "Second." }] },
      ]);
      const handle = runs.start({ input: "q1", ...user });
      const events = await collect(handle);
      expect(reasoningOf(events)).toBe("Thinking hard.");
      expect(contentOf(events)).toBe("Answer.");
      expect(events.every((e) => !("reasoning_content" in e.chunk.choices[0].delta))).toBe(true);
      expect((await memory.load(user))[1]).toEqual({
        role: "assistant",
        content: "Answer.",
        reasoning: "Thinking hard.",
      });

      await runs.start({ input: "q2", ...user }).done;
      const sent = server.requests[1] as Sent;
      expect(sent.messages[0]).toEqual({ role: "system", content: "Be brief." });
      const assistant = sent.messages.find((m) => m.role === "assistant");
      expect(assistant).toMatchObject({ content: "Answer.", reasoning_content: "Thinking hard." });
    });
  }

  it("streams tool-call fragments keyed by index and runs the tool through the real provider", async () => {
    const lookup = defineTool({
      name: "lookup",
      description: "Look something up",
      input: v.object({ q: v.string() }),
      execute: ({ q }) => `found ${q}`,
    });
    const { runs, server } = await managerFor(
      [
        {
          deltas: [
            {
              tool_calls: [
                { index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: "" } },
              ],
            },
            { tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] },
            { tool_calls: [{ index: 0, function: { arguments: '"cats"}' } }] },
          ],
          finishReason: "tool_calls",
        },
        { deltas: [{ content: "Cats found." }] },
      ],
      [lookup],
    );
    const events = await collect(runs.start({ input: "find cats", ...user }));
    const fragments = events.flatMap((e) => e.chunk.choices[0].delta.tool_calls ?? []);
    expect(fragments.every((f) => f.index === 0)).toBe(true);
    expect(fragments.map((f) => f.function.arguments ?? "").join("")).toBe('{"q":"cats"}');
    const sent = server.requests[1] as Sent;
    expect(sent.messages.find((m) => m.role === "tool")).toMatchObject({
      tool_call_id: "call_1",
      content: "found cats",
    });
    expect(contentOf(events)).toBe("Cats found.");
  });

  it("aborts the in-flight HTTP request on cancel (seen by the server) and keeps the streamed text", async () => {
    const words = Array.from({ length: 100 }, (_, i) => ({ content: `w${i} ` }));
    const { runs, memory, server } = await managerFor([{ deltas: words, delayMs: 20 }]);
    const handle = runs.start({ input: "talk", ...user });
    await firstContent(handle);
    expect(runs.cancel(handle.threadId, { userId: "u1" })).toBe(true);
    const result = await handle.done;
    expect(result.status).toBe("cancelled");
    expect(await server.outcomes[0]).toBe("client-closed");
    const stored = await memory.load(user);
    expect(stored[1]?.role).toBe("assistant");
    expect((stored[1] as { content: string }).content.startsWith("w0 ")).toBe(true);
    expect(result.text.length).toBeLessThan(words.length * 3);
  });

  it("gives an orphaned tool call a synthetic cancelled result so the next turn's history is valid", async () => {
    let runs!: RunManager;
    const { first, second } = cancelAfterFirstTools(() => runs);
    const made = await managerFor(
      [
        {
          deltas: [
            {
              tool_calls: [
                { index: 0, id: "call_a", type: "function", function: { name: "first", arguments: "{}" } },
                { index: 1, id: "call_b", type: "function", function: { name: "second", arguments: "{}" } },
              ],
            },
          ],
          finishReason: "tool_calls",
        },
        { deltas: [{ content: "Next turn." }] },
      ],
      [first, second],
    );
    runs = made.runs;
    expect((await runs.start({ input: "do both", ...user }).done).status).toBe("cancelled");
    await runs.start({ input: "again", ...user }).done;
    const sent = made.server.requests[1] as Sent;
    const callIds = sent.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    const resultIds = sent.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
    expect(callIds).toEqual(["call_a", "call_b"]);
    expect(resultIds).toEqual(["call_a", "call_b"]);
    expect(sent.messages.find((m) => m.tool_call_id === "call_b")?.content).toBe(CANCELLED_RESULT);
  });
});

describe("openai provider (Chat Completions) against the fake server", () => {
  it("reads the key from apiKeyEnvVar at start-up and streams the reply", async () => {
    server = await startFakeOpenAI([{ deltas: [{ role: "assistant", content: "Hi from OpenAI." }] }]);
    const agent = defineAgent({
      name: "oa",
      model: {
        provider: "openai",
        model: "gpt-test",
        baseURL: server.baseURL,
        apiKeyEnvVar: "TEST_OPENAI_KEY",
      },
    });
    const runs = new RunManager({ agent, env: { TEST_OPENAI_KEY: "sk-test-123" } });
    const result = await runs.start({ input: "hello", ...user }).done;
    expect(result.text).toBe("Hi from OpenAI.");
    expect(server.authorizations[0]).toBe("Bearer sk-test-123");
    expect((server.requests[0] as { model: string; stream: boolean }).model).toBe("gpt-test");
  });
});
