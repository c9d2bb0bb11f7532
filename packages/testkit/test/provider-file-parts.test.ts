// The provider fakes take files as each provider documents them and refuse what the provider
// refuses, with its error body (sources in src/providers/file-parts.ts).
import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_TEST_KEY,
  FakeAnthropic,
  FakeGemini,
  FakeOpenAI,
  GEMINI_TEST_KEY,
  OPENAI_TEST_KEY,
} from "../src/index.js";
import { startedFakes } from "./started-fakes.js";
import { post } from "./sse.js";

const started = startedFakes();

const b64 = (n: number, byte = 1) => Buffer.alloc(n, byte).toString("base64");
const MB = 1024 * 1024;

describe("FakeOpenAI: content parts of Chat Completions", () => {
  const chat = (f: FakeOpenAI, model: string, content: unknown[]) =>
    post(
      `${f.baseURL}/chat/completions`,
      { model, messages: [{ role: "user", content }] },
      { authorization: `Bearer ${OPENAI_TEST_KEY}` },
    );

  it("takes an image data URL and a PDF file part on a vision model", async () => {
    const f = await started(FakeOpenAI.start());
    const res = await chat(f, "gpt-4o", [
      { type: "image_url", image_url: { url: `data:image/png;base64,${b64(10)}` } },
      { type: "file", file: { filename: "r.pdf", file_data: `data:application/pdf;base64,${b64(10)}` } },
      { type: "text", text: "look" },
    ]);
    expect(res.status).toBe(200);
  });

  it("refuses an image on a text-only model, an unsupported picture, and audio in a format it does not take", async () => {
    const f = await started(FakeOpenAI.start());
    const text = await chat(f, "gpt-3.5-turbo", [
      { type: "text", text: "look" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${b64(10)}` } },
    ]);
    expect(text.status).toBe(400);
    expect(text.json()).toEqual({
      error: {
        message: "Invalid content type. image_url is only supported by certain models.",
        type: "invalid_request_error",
        param: "messages.[0].content.[1].type",
        code: null,
      },
    });
    const bmp = await chat(f, "gpt-4o", [
      { type: "image_url", image_url: { url: `data:image/bmp;base64,${b64(10)}` } },
    ]);
    expect(bmp.status).toBe(400);
    expect(bmp.json()).toMatchObject({ error: { code: "invalid_image_format" } });
    const ogg = await chat(f, "gpt-4o-audio-preview", [
      { type: "input_audio", input_audio: { data: b64(10), format: "ogg" } },
    ]);
    expect(ogg.status).toBe(400);
    expect(f.pending).toBe(0);
  });
});

describe("FakeAnthropic: image and document blocks", () => {
  const messages = (f: FakeAnthropic, content: unknown[]) =>
    post(
      `${f.baseURL}/messages`,
      { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content }] },
      { "x-api-key": ANTHROPIC_TEST_KEY, "anthropic-version": "2023-06-01" },
    );

  it("takes a base64 image and a PDF document", async () => {
    const f = await started(FakeAnthropic.start());
    const res = await messages(f, [
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(10) } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: b64(10) } },
      { type: "text", text: "look" },
    ]);
    expect(res.status).toBe(200);
  });

  it("refuses an image over 5 MB and a type it does not list, as invalid_request_error", async () => {
    const f = await started(FakeAnthropic.start());
    const big = await messages(f, [
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(5 * MB + 1) } },
    ]);
    expect(big.status).toBe(400);
    expect(big.json()).toMatchObject({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: `messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: ${5 * MB + 1} bytes > ${5 * MB} bytes`,
      },
    });
    const bmp = await messages(f, [
      { type: "image", source: { type: "base64", media_type: "image/bmp", data: b64(10) } },
    ]);
    expect(bmp.status).toBe(400);
    expect(JSON.stringify(bmp.json())).toContain("media_type: Input should be");
  });
});

describe("FakeGemini: inline data parts", () => {
  const generate = (f: FakeGemini, parts: unknown[]) =>
    post(
      `${f.baseURL}/models/gemini-2.5-flash:generateContent`,
      { contents: [{ role: "user", parts }] },
      { "x-goog-api-key": GEMINI_TEST_KEY },
    );

  it("takes inlineData (and inline_data) images, PDFs and audio", async () => {
    const f = await started(FakeGemini.start());
    const res = await generate(f, [
      { inlineData: { mimeType: "image/jpeg", data: b64(10) } },
      { inline_data: { mime_type: "audio/ogg", data: b64(10) } },
      { inlineData: { mimeType: "application/pdf", data: b64(10) } },
      { text: "look" },
    ]);
    expect(res.status).toBe(200);
  });

  it("refuses an unsupported MIME type and a request over 20 MB with INVALID_ARGUMENT", async () => {
    const f = await started(FakeGemini.start());
    const bmp = await generate(f, [{ inlineData: { mimeType: "image/bmp", data: b64(10) } }]);
    expect(bmp.status).toBe(400);
    expect(bmp.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
    const big = await generate(f, [{ inlineData: { mimeType: "image/png", data: b64(16 * MB) } }]);
    expect(big.status).toBe(400);
    expect(JSON.stringify(big.json())).toContain("Request payload size exceeds the limit: 20971520 bytes.");
  }, 60_000); // a 21 MB request: 10-15 s of wall time at load 50
});
