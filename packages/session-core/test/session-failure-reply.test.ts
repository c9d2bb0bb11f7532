// What a gateway user is told when the model fails: one friendly line per error code, never the
// provider's own (raw JSON) text, which stays in the logs.
import { describe, expect, it } from "vitest";
import { failureText } from "../src/replies.js";
import { useRig } from "./session-harness.js";
import { acceptedId } from "./turn-harness.js";

const T = "t-failure";
const openRig = useRig();
const PROVIDER_TEXT =
  '{"error":{"message":"The server had an error while processing your request","type":"server_error"}}';

type RigModel = NonNullable<NonNullable<Parameters<typeof openRig>[0]>["model"]>;

/** A model whose every call fails with the provider's raw error body as its message. */
const failingModel = {
  specificationVersion: "v4",
  provider: "test",
  modelId: "failing",
  supportedUrls: {},
  doGenerate: () => Promise.reject(new Error("unused")),
  doStream: () => Promise.reject(new Error(PROVIDER_TEXT)),
} as const satisfies RigModel;

/** A model that answers "Half an ans" and stops at its output limit (finish reason `length`). */
const cutModel = {
  specificationVersion: "v4",
  provider: "test",
  modelId: "cut",
  supportedUrls: {},
  doGenerate: () => Promise.reject(new Error("unused")),
  doStream: async () => ({
    stream: new ReadableStream({
      start(controller) {
        controller.enqueue({ type: "text-start", id: "t" });
        controller.enqueue({ type: "text-delta", id: "t", delta: "Half an ans" });
        controller.enqueue({ type: "text-end", id: "t" });
        controller.enqueue({
          type: "finish",
          finishReason: { unified: "length", raw: "length" },
          usage: {
            inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 4, text: 4, reasoning: undefined },
          },
        });
        controller.close();
      },
    }),
  }),
} as const satisfies RigModel;

describe("the reply to a message whose answer the model cut at its output limit", () => {
  it("says so after the text, so it does not read as a whole answer", async () => {
    const r = await openRig({ model: cutModel });
    await acceptedId(r, T, "hello");
    await r.session.idle();
    expect(r.gateway.textsTo(T)).toEqual([
      "Half an ans\n\n(The reply was cut off at the model's length limit.)",
    ]);
  });
});

describe("the reply to a message whose model call failed", () => {
  it("is a friendly line, not the provider's JSON", async () => {
    const r = await openRig({ model: failingModel });
    await acceptedId(r, T, "hello");
    await r.session.idle();
    expect(r.gateway.textsTo(T)).toEqual(["Sorry, the AI model failed to answer. Please try again."]);
  });

  it.each([
    ["overloaded", "Sorry, the AI model is overloaded right now. Please try again in a few minutes."],
    ["timeout", "Sorry, the AI model took too long to answer. Please try again."],
    [
      "context_length",
      "Sorry, this conversation has grown too long for me to answer. Please send a shorter message or start a new conversation.",
    ],
    [
      "auth",
      "Sorry, I cannot reach my AI model right now (its key was refused). Please tell whoever runs this service.",
    ],
    ["bad_request", "Sorry, the AI model refused this request. Please try rewording it."],
    ["model_error", "Sorry, the AI model failed to answer. Please try again."],
  ])("for %s says so in one line, without the error's message or detail", (code, line) => {
    expect(
      failureText({ code, message: PROVIDER_TEXT, detail: PROVIDER_TEXT, envVar: "OPENAI_API_KEY" }),
    ).toBe(line);
  });

  it("for rate_limited says when to try again (seconds, minutes, or a minute when unknown)", () => {
    const rateLimited = (retryAfterMs?: number) =>
      failureText({
        code: "rate_limited",
        message: PROVIDER_TEXT,
        ...(retryAfterMs ? { retryAfterMs } : {}),
      });
    expect(rateLimited(1500)).toBe(
      "Sorry, the AI model is getting too many requests. Please try again in 2 seconds.",
    );
    expect(rateLimited(600_000)).toBe(
      "Sorry, the AI model is getting too many requests. Please try again in 10 minutes.",
    );
    expect(rateLimited()).toBe(
      "Sorry, the AI model is getting too many requests. Please try again in a minute.",
    );
  });

  it("for budget_exceeded says the budget is used up and when it resets, without the error's message", () => {
    const spent = (retryAfterMs?: number) =>
      failureText({
        code: "budget_exceeded",
        message: "The daily budget of this user is used up",
        retryAfterMs,
      });
    expect(spent(45 * 60_000)).toBe(
      "Sorry, this service has used up its AI budget for now. Please try again in 45 minutes.",
    );
    expect(spent(5 * 3_600_000 + 1)).toBe(
      "Sorry, this service has used up its AI budget for now. Please try again in 6 hours.",
    );
    expect(spent()).toBe("Sorry, this service has used up its AI budget for now. Please try again later.");
  });

  it("for a code of the service itself keeps naming the code", () => {
    expect(failureText({ code: "max_steps", message: "x" })).toBe(
      "Sorry, I could not answer this message (max_steps).",
    );
  });
});
