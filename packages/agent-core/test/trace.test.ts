// The run's spans as the GenAI semantic conventions name them, read from the trace SDK's in-memory
// exporter: a model call against a local Chat Completions server (its token counts), tool calls
// (a failure, an approval wait) and the opt-in message content.
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import * as v from "valibot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AnyTool,
  defineAgent,
  defineTool,
  RunManager,
  useOpenTelemetry,
  WindowMemory,
} from "../src/index.js";
import { type Fault, openaiFault } from "./fake-faults.js";
import { type FakeOpenAI, type FakeReply, startFakeOpenAI } from "./fake-openai-server.js";
import { collect } from "./helpers.js";

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const user = { userId: "u1", conversationId: "c1" };
let server: FakeOpenAI | undefined;

beforeAll(() => {
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  useOpenTelemetry(api);
});
afterAll(async () => {
  await provider.shutdown();
  api.trace.disable();
  api.context.disable();
});
afterEach(async () => {
  exporter.reset();
  delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
  await server?.close();
  server = undefined;
});

async function runOnce(replies: (FakeReply | Fault)[], tools: AnyTool[] = []) {
  server = await startFakeOpenAI(replies);
  const agent = defineAgent({
    name: "tracer",
    model: { provider: "openai-compatible", model: "fake-model", baseURL: server.baseURL },
    tools,
  });
  const runs = new RunManager({ agent, memory: new WindowMemory() });
  await collect(runs.start({ input: "what is the weather in Porto?", ...user }));
  return exporter.getFinishedSpans();
}

const named = (spans: ReturnType<InMemorySpanExporter["getFinishedSpans"]>, name: string) =>
  spans.filter((s) => s.name === name);

describe("GenAI spans of a run", () => {
  it("each attempt of a retried model call is its own `chat <model>` span with its attempt number; the failed one carries the error code", async () => {
    const spans = await runOnce([
      openaiFault.status(
        503,
        {
          message: "The server is overloaded",
          type: "service_unavailable_error",
          code: "server_is_overloaded",
        },
        { "retry-after-ms": "1" },
      ),
      { deltas: [{ content: "Sunny." }] },
    ]);
    const chats = named(spans, "chat fake-model");
    expect(chats.map((s) => s.attributes["agentsvc.model.attempt"])).toEqual([1, 2]);
    expect(chats[0]?.attributes["error.type"]).toBe("overloaded");
    expect(chats[0]?.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(chats[1]?.attributes["error.type"]).toBeUndefined();
    // Both are children of the run's span.
    const [run] = named(spans, "invoke_agent tracer");
    for (const chat of chats) expect(chat.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
  });

  it("a model call is `chat <model>` with the provider, finish reason and the token counts the server reported, and no content by default", async () => {
    const spans = await runOnce([
      {
        deltas: [{ content: "Sunny." }],
        usage: { prompt_tokens: 21, completion_tokens: 3, total_tokens: 24 },
      },
    ]);
    const [chat] = named(spans, "chat fake-model");
    const [agent] = named(spans, "invoke_agent tracer");
    expect(chat?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai-compatible",
      "gen_ai.request.model": "fake-model",
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.input_tokens": 21,
      "gen_ai.usage.output_tokens": 3,
    });
    expect(chat?.attributes["gen_ai.input.messages"]).toBeUndefined();
    expect(chat?.attributes["gen_ai.output.messages"]).toBeUndefined();
    expect(chat?.parentSpanContext?.spanId).toBe(agent?.spanContext().spanId);
    expect(agent?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "tracer",
    });
  });

  it("records the prompt and the reply only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true", async () => {
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = "true";
    const [chat] = named(await runOnce([{ deltas: [{ content: "Sunny." }] }]), "chat fake-model");
    expect(String(chat?.attributes["gen_ai.input.messages"])).toContain("what is the weather in Porto?");
    expect(String(chat?.attributes["gen_ai.output.messages"])).toContain("Sunny.");
  });

  it("a tool that throws gives an `execute_tool <name>` span marked failed with error.type; an approval-gated call records its wait as an event", async () => {
    const call = (name: string, id: string) => ({
      tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: '{"city":"Porto"}' } }],
    });
    const tools = [
      defineTool({
        name: "flaky",
        description: "Fails.",
        input: v.object({ city: v.string() }),
        execute: () => {
          throw new Error("upstream down");
        },
      }),
      defineTool({
        name: "book",
        description: "Books a table (needs approval).",
        input: v.object({ city: v.string() }),
        needsApproval: true,
        execute: () => "booked",
      }),
    ];
    const spans = await runOnce(
      [
        { deltas: [call("flaky", "call_1")], finishReason: "tool_calls" },
        { deltas: [call("book", "call_2")], finishReason: "tool_calls" },
      ],
      tools,
    );
    const [flaky] = named(spans, "execute_tool flaky");
    expect(flaky?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "flaky",
      "gen_ai.tool.call.id": "call_1",
      "error.type": "tool_error",
    });
    expect(flaky?.status.code).toBe(2); // SpanStatusCode.ERROR
    const [book] = named(spans, "execute_tool book");
    expect(book?.events.map((e) => e.name)).toEqual(["approval requested"]);
    expect(book?.attributes["agentsvc.tool.outcome"]).toBe("awaiting_approval");
    expect(named(spans, "invoke_agent tracer")[0]?.attributes["agentsvc.run.outcome"]).toBe("suspended");
  });

  it("a run continued after a decision stays in its first trace: the continued invoke_agent is a child of the first, linked to the decision's span", async () => {
    const book = defineTool({
      name: "book",
      description: "Books a table (needs approval).",
      input: v.object({ city: v.string() }),
      needsApproval: true,
      execute: () => "booked",
    });
    server = await startFakeOpenAI([
      {
        deltas: [
          {
            tool_calls: [
              {
                index: 0,
                id: "call_1",
                type: "function",
                function: { name: "book", arguments: '{"city":"Porto"}' },
              },
            ],
          },
        ],
        finishReason: "tool_calls",
      },
      { deltas: [{ content: "Booked." }] },
    ]);
    const agent = defineAgent({
      name: "tracer",
      model: { provider: "openai-compatible", model: "fake-model", baseURL: server.baseURL },
      tools: [book],
    });
    const runs = new RunManager({ agent, memory: new WindowMemory() });
    const tracer = api.trace.getTracer("test");
    // The page's two requests: the message that suspends, then the decision (another trace).
    const message = tracer.startSpan("POST /chat/api/stream");
    await api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, message), () =>
      collect(runs.start({ input: "book Porto", threadId: "t-trace", ...user })),
    );
    message.end();
    const decision = tracer.startSpan("POST /chat/api/resume");
    const resumed = await api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, decision), () =>
      runs.resume("t-trace", { decision: "approve" }, { userId: user.userId }),
    );
    await collect(resumed);
    decision.end();
    const spans = exporter.getFinishedSpans();
    const [first, continued, ...more] = named(spans, "invoke_agent tracer");
    expect(more).toEqual([]);
    const traceId = message.spanContext().traceId;
    expect(decision.spanContext().traceId).not.toBe(traceId);
    expect(first?.parentSpanContext?.spanId).toBe(message.spanContext().spanId);
    expect(continued?.spanContext().traceId).toBe(traceId);
    expect(continued?.parentSpanContext?.spanId).toBe(first?.spanContext().spanId);
    expect(continued?.links.map((l) => l.context.spanId)).toEqual([decision.spanContext().spanId]);
    // What the continuation does (the approved call, the next model call) is in the same trace.
    const [executed] = named(spans, "execute_tool book").filter(
      (s) => s.attributes["agentsvc.tool.outcome"] !== "awaiting_approval",
    );
    expect(executed?.spanContext().traceId).toBe(traceId);
    expect(named(spans, "chat fake-model").map((s) => s.spanContext().traceId)).toEqual([traceId, traceId]);
  });
});
