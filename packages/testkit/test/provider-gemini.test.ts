// FakeGemini against Google's documents: https://ai.google.dev/api/generate-content,
// https://ai.google.dev/gemini-api/docs/troubleshooting, https://ai.google.dev/gemini-api/docs/function-calling.
import { afterEach, describe, expect, it } from "vitest";
import { FakeGemini, GEMINI_TEST_KEY } from "../src/index.js";
import { type Json, parseSse, post } from "./sse.js";

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const headers = { "x-goog-api-key": GEMINI_TEST_KEY };
const hi = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };
const streamUrl = (f: FakeGemini, model = "gemini-2.5-flash") =>
  `${f.baseURL}/models/${model}:streamGenerateContent?alt=sse`;
const responses = (text: string) => parseSse(text).map((e) => JSON.parse(e.data) as Record<string, Json>);

describe("FakeGemini: streamGenerateContent?alt=sse", () => {
  it("streams one GenerateContentResponse per event (CRLF framed), finishReason and full usage on the last", async () => {
    fake = await FakeGemini.start();
    fake.enqueue({ reasoning: ["plan"], text: ["Hel", "lo"], usage: { input: 9, output: 2, reasoning: 1 } });
    const res = await post(streamUrl(fake), hi, headers);
    expect(res.text).toContain("\r\n\r\n");
    const all = responses(res.text);
    expect(all.map((r) => r.candidates[0].content.parts[0])).toEqual([
      { text: "plan", thought: true },
      { text: "Hel" },
      { text: "lo" },
    ]);
    expect(
      all.every((r) => r.candidates[0].content.role === "model" && r.modelVersion === "gemini-2.5-flash"),
    ).toBe(true);
    expect(all.slice(0, -1).some((r) => r.candidates[0].finishReason)).toBe(false);
    expect(all.at(-1)).toMatchObject({
      candidates: [{ finishReason: "STOP" }],
      usageMetadata: {
        promptTokenCount: 9,
        candidatesTokenCount: 2,
        thoughtsTokenCount: 1,
        totalTokenCount: 12,
      },
    });
  });

  it("sends a function call whole, its args as an object, and MAX_TOKENS for a cut answer", async () => {
    fake = await FakeGemini.start();
    fake.enqueue(
      { toolCalls: [{ name: "weather", arguments: ['{"city":', '"Paris"}'] }] },
      { text: ["cut"], finish: "length" },
    );
    const call = responses((await post(streamUrl(fake), hi, headers)).text);
    expect(call.map((r) => r.candidates[0].content.parts[0])).toMatchObject([
      { functionCall: { name: "weather", args: { city: "Paris" } } },
    ]);
    const cut = responses((await post(streamUrl(fake), hi, headers)).text);
    expect(cut.at(-1)?.candidates[0].finishReason).toBe("MAX_TOKENS");
  });

  it("answers generateContent with one response object", async () => {
    fake = await FakeGemini.start();
    fake.enqueue({ text: ["Hi ", "there"] });
    const res = await post(`${fake.baseURL}/models/gemini-2.5-flash:generateContent`, hi, headers);
    expect(res.json()).toMatchObject({
      candidates: [{ content: { parts: [{ text: "Hi " }, { text: "there" }] }, finishReason: "STOP" }],
    });
  });
});

describe("FakeGemini: refusals with Google's own bodies", () => {
  const errorOf = (res: { json: () => unknown }) => (res.json() as { error: Record<string, Json> }).error;

  it("answers 400 API_KEY_INVALID for a wrong key, 403 PERMISSION_DENIED for none, and takes ?key= too", async () => {
    fake = await FakeGemini.start();
    const wrong = await post(streamUrl(fake), hi, { "x-goog-api-key": "nope" });
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong)).toMatchObject({
      code: 400,
      status: "INVALID_ARGUMENT",
      details: [{ reason: "API_KEY_INVALID" }],
    });
    const none = await post(streamUrl(fake), hi, {});
    expect(errorOf(none)).toMatchObject({ code: 403, status: "PERMISSION_DENIED" });
    const query = await post(`${streamUrl(fake)}&key=${GEMINI_TEST_KEY}`, hi, {});
    expect(query.status).toBe(200);
  });

  it.each([
    [{ kind: "rate_limited" }, 429, "RESOURCE_EXHAUSTED"],
    [{ kind: "overloaded" }, 503, "UNAVAILABLE"],
    [{ kind: "server_error" }, 500, "INTERNAL"],
    [{ kind: "context_length" }, 400, "INVALID_ARGUMENT"],
  ] as const)("a scripted %o is answered %i %s", async (fault, code, status) => {
    fake = await FakeGemini.start();
    fake.enqueue({ fault });
    const res = await post(streamUrl(fake), hi, headers);
    expect(res.status).toBe(code);
    expect(errorOf(res)).toMatchObject({ code, status });
    if (fault.kind === "rate_limited")
      expect(errorOf(res).details).toEqual([
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" },
      ]);
  });

  it("signs the first function call, and for a Gemini 3 model refuses the call sent back without its signature", async () => {
    fake = await FakeGemini.start();
    fake.enqueue({
      toolCalls: [
        { name: "f", arguments: ["{}"] },
        { name: "g", arguments: ["{}"] },
      ],
    });
    const parts = responses((await post(streamUrl(fake, "gemini-3-pro-preview"), hi, headers)).text).map(
      (r) => r.candidates[0].content.parts[0],
    );
    expect(typeof parts[0].thoughtSignature).toBe("string");
    expect(parts[1].thoughtSignature).toBeUndefined();
    const answered = (first: Record<string, unknown>) => ({
      contents: [
        ...hi.contents,
        { role: "model", parts: [first, { functionCall: { name: "g", args: {} } }] },
        { role: "user", parts: ["f", "g"].map((name) => ({ functionResponse: { name, response: {} } })) },
      ],
    });
    const unsigned = await post(
      streamUrl(fake, "gemini-3-pro-preview"),
      answered({ functionCall: { name: "f", args: {} } }),
      headers,
    );
    expect(unsigned.status).toBe(400);
    expect(errorOf(unsigned).message).toMatch(
      /^Function call is missing a thought_signature in functionCall parts\./,
    );
    expect((await post(streamUrl(fake, "gemini-3-pro-preview"), answered(parts[0]), headers)).status).toBe(
      200,
    );
    // The documented stand-in for a history without real signatures is accepted.
    const dummy = {
      functionCall: { name: "f", args: {} },
      thoughtSignature: "skip_thought_signature_validator",
    };
    expect((await post(streamUrl(fake, "gemini-3-pro-preview"), answered(dummy), headers)).status).toBe(200);
    // Gemini 2.5 does not require it.
    expect(
      (await post(streamUrl(fake), answered({ functionCall: { name: "f", args: {} } }), headers)).status,
    ).toBe(200);
  });

  it("refuses a function call turn not followed by its function response turn, and a response count that differs", async () => {
    fake = await FakeGemini.start();
    const call = {
      role: "model",
      parts: [{ functionCall: { name: "f", args: {} } }, { functionCall: { name: "g", args: {} } }],
    };
    const noAnswer = await post(
      streamUrl(fake),
      { contents: [...hi.contents, call, { role: "user", parts: [{ text: "?" }] }] },
      headers,
    );
    expect(errorOf(noAnswer).message).toBe(
      "Please ensure that function response turn comes immediately after a function call turn.",
    );
    const one = { role: "user", parts: [{ functionResponse: { name: "f", response: {} } }] };
    const short = await post(streamUrl(fake), { contents: [...hi.contents, call, one] }, headers);
    expect(errorOf(short).message).toMatch(
      /number of function response parts is equal to the number of function call parts/,
    );
    const both = { role: "user", parts: [...one.parts, { functionResponse: { name: "g", response: {} } }] };
    expect((await post(streamUrl(fake), { contents: [...hi.contents, call, both] }, headers)).status).toBe(
      200,
    );
  });
});
