// The classifier on the error shapes the AI SDK providers produce, with the providers' documented
// texts (sources in src/model-errors.ts).
import { APICallError, TypeValidationError } from "@ai-sdk/provider";
import { createProviderStreamError } from "@ai-sdk/provider-utils";
import { describe, expect, it } from "vitest";
import { classifyModelError, retryAfter } from "../src/model-errors.js";

function apiError(statusCode: number, body: unknown, headers: Record<string, string> = {}) {
  const responseBody = JSON.stringify(body);
  return new APICallError({
    message: "provider message",
    url: "http://127.0.0.1/v1",
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody,
    data: body,
  });
}

describe("classifyModelError", () => {
  it.each([
    [
      "OpenAI context_length_exceeded",
      400,
      {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
          type: "invalid_request_error",
          code: "context_length_exceeded",
        },
      },
    ],
    [
      "Anthropic prompt is too long",
      400,
      {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "prompt is too long: 208000 tokens > 200000 maximum",
        },
      },
    ],
    [
      "Anthropic request_too_large",
      413,
      {
        type: "error",
        error: { type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." },
      },
    ],
    [
      "Gemini input token count",
      400,
      {
        error: {
          code: 400,
          message: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
          status: "INVALID_ARGUMENT",
        },
      },
    ],
    [
      "xAI maximum prompt length",
      400,
      { error: "This model's maximum prompt length is 131072 but the request contains 136973 tokens." },
    ],
    ["Bedrock input too long", 400, { message: "Input is too long for requested model." }],
    [
      "TGI inputs + max_new_tokens",
      422,
      {
        error:
          "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 65537. Given: 79993 `inputs` tokens and 1024 `max_new_tokens`",
      },
    ],
  ])("%s is context_length, not retried", (_name, status, body) => {
    const failure = classifyModelError(apiError(status, body));
    expect(failure.error.code).toBe("context_length");
    expect(failure.retryable).toBe(false);
    expect(failure.error.message).toBe(
      "This conversation is too long for the model; start a new one or clear it.",
    );
  });

  it("keeps the provider's text as detail and never puts JSON in the message", () => {
    const failure = classifyModelError(
      apiError(400, { error: { message: "Invalid value for 'temperature'", type: "invalid_request_error" } }),
    );
    expect(failure.error).toEqual({
      code: "bad_request",
      message: "The model provider refused the request (HTTP 400).",
      detail: "Invalid value for 'temperature'",
      statusCode: 400,
    });
    expect(failure.retryable).toBe(false);
  });

  it.each([
    [408, "timeout", true],
    [409, "model_error", true],
    [404, "bad_request", false],
    [500, "model_error", true],
    [502, "model_error", true],
    [503, "overloaded", true],
    [529, "overloaded", true],
    [403, "auth", false],
  ])("HTTP %i is %s (retried: %s)", (status, code, retryable) => {
    const failure = classifyModelError(apiError(status, { error: { message: "x" } }));
    expect(failure.error.code).toBe(code);
    expect(failure.retryable).toBe(retryable);
  });

  it("a mid-stream overloaded_error (a provider stream error) is overloaded and retryable", () => {
    const failure = classifyModelError(
      createProviderStreamError({
        message: "Overloaded",
        type: "overloaded_error",
        statusCode: 529,
        data: {},
      }),
    );
    expect(failure.error).toMatchObject({ code: "overloaded", detail: "Overloaded", statusCode: 529 });
    expect(failure.retryable).toBe(true);
  });

  it("a malformed stream chunk is model_error and retryable", () => {
    const failure = classifyModelError(
      new TypeValidationError({ value: { nope: 1 }, cause: new Error("bad") }),
    );
    expect(failure.error.code).toBe("model_error");
    expect(failure.error.message).toBe("The model provider sent a reply that could not be read.");
    expect(failure.retryable).toBe(true);
  });

  it("a reset connection (undici's `terminated`) is model_error and retryable", () => {
    const reset = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    const failure = classifyModelError(new TypeError("terminated", { cause: reset }));
    expect(failure.error.message).toBe("The connection to the model provider failed; try again.");
    expect(failure.retryable).toBe(true);
  });

  it("any other thrown error is model_error, kept as detail and not retried (the AI SDK does not retry it either)", () => {
    const failure = classifyModelError(new Error("upstream exploded"));
    expect(failure.error).toEqual({
      code: "model_error",
      message: "The model call failed; try again.",
      detail: "upstream exploded",
    });
    expect(failure.retryable).toBe(false);
  });

  it("an abort is cancelled when the run was cancelled, timeout when the attempt's timer fired", () => {
    const abort = new DOMException("aborted", "AbortError");
    expect(classifyModelError(abort, { cancelled: true }).error.code).toBe("cancelled");
    const timedOut = classifyModelError(abort, { timedOutAfterMs: 120_000 });
    expect(timedOut.error).toEqual({
      code: "timeout",
      message: "The model did not answer within 120 s; try again.",
    });
    expect(timedOut.retryable).toBe(true);
  });

  it("a 401 without a known variable says to check the model's API key", () => {
    const failure = classifyModelError(apiError(401, { error: { message: "Incorrect API key provided" } }));
    expect(failure.error.message).toBe(
      "The model provider refused the API key (HTTP 401); check the model's API key.",
    );
  });
});

describe("retryAfter", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  it("prefers retry-after-ms", () => {
    expect(retryAfter({ "retry-after-ms": "250", "retry-after": "3" }, now)).toBe(250);
  });
  it("reads retry-after seconds", () => {
    expect(retryAfter({ "retry-after": "3" }, now)).toBe(3000);
  });
  it("reads a retry-after HTTP date", () => {
    expect(retryAfter({ "Retry-After": "Tue, 01 Dec 2026 12:00:07 GMT" }, now)).toBe(7000);
  });
  it("ignores a value it cannot read", () => {
    expect(retryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
  });
});
