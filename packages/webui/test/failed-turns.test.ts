// What the chat API gives the page when the model fails after part of the reply streamed: a typed
// `error` event without the provider's text, a failed `/invoke` with its status, and a history in
// which the partial reply is marked as cut short.
import { defineAgent, type LanguageModelInstance } from "@agentsvc/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, postStream, readSse, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Anthropic's documented mid-stream error event body (https://docs.claude.com/en/api/errors). */
const OVERLOADED = { type: "overloaded_error", message: "Overloaded" };

/** An AI SDK LanguageModel of the current specification (v4), as an agent file may build one. */
type LanguageModelV4 = Extract<LanguageModelInstance, { specificationVersion: "v4" }>;
type StreamPart =
  Awaited<ReturnType<LanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

/** A model that streams "Partial answer" and then fails with the provider's own error part. */
function failsMidStream(): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "test",
    modelId: "mid-stream-failure",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async () => ({
      stream: new ReadableStream<StreamPart>({
        start(controller) {
          controller.enqueue({ type: "text-start", id: "t" });
          controller.enqueue({ type: "text-delta", id: "t", delta: "Partial answer" });
          controller.enqueue({ type: "error", error: { type: "error", error: OVERLOADED } });
          controller.close();
        },
      }),
    }),
  };
}

const agent = () => defineAgent({ name: "helper", model: failsMidStream() });

describe("a turn whose model fails after part of the reply streamed", () => {
  it("ends the page's stream with a typed error event, never the provider's JSON", async () => {
    h = await startHarness({ agent: agent() });
    const events = await readSse(await postStream(h.base, "/stream", { input: "hi", conversationId: "f1" }));
    const error = events.find((e) => e.event === "error");
    expect(error?.data).not.toContain("overloaded_error");
    expect(Object.keys(JSON.parse(error!.data)).sort()).toEqual(["code", "message"]);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ status: "failed" });
  });

  it("answers /invoke with success false and the HTTP status of its code", async () => {
    h = await startHarness({ agent: agent() });
    const r = await h.client().post("/invoke", { input: "hi", conversationId: "f2" });
    expect(r.status).toBeGreaterThanOrEqual(500);
    expect(r.body).toMatchObject({ success: false, status: "failed", output: "Partial answer" });
    expect(JSON.stringify(r.body)).not.toContain("overloaded_error");
  });

  it("keeps the partial reply in the history, marked interrupted for the page", async () => {
    h = await startHarness({ agent: agent() });
    const c = h.client();
    await c.post("/invoke", { input: "hi", conversationId: "f3" });
    const history = (await c.get("/history?conversationId=f3")).body.messages;
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: "Partial answer", interrupted: true });
  });
});
