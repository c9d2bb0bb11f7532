// Which stored files a model gets as file parts (the capability table, its override) and what
// they cost in a prompt window.
import { describe, expect, it } from "vitest";
import { type AttachmentRef, type Message, modelFileInputs, promptWindow } from "../src/index.js";

const MB = 1024 * 1024;
const kinds = (provider: string, model: string) => [...modelFileInputs(provider, model).kinds].sort();

describe("modelFileInputs", () => {
  it.each([
    ["openai", "gpt-4o", ["image", "pdf"]],
    ["openai", "gpt-4.1-mini", ["image", "pdf"]],
    ["openai", "gpt-5", ["image", "pdf"]],
    ["openai", "gpt-4o-audio-preview", ["audio"]],
    ["openai", "gpt-3.5-turbo", []],
    ["openai", "o3-mini", []],
    ["anthropic", "claude-sonnet-4-5", ["image", "pdf"]],
    ["anthropic", "claude-3-5-haiku-latest", ["image", "pdf"]],
    ["google", "gemini-2.5-flash", ["audio", "image", "pdf"]],
    ["groq", "meta-llama/llama-4-scout-17b-16e-instruct", ["image"]],
    ["groq", "llama-3.3-70b-versatile", []],
    ["deepseek", "deepseek-chat", []],
    ["openai-compatible", "llava", []],
    ["demo", "agentsvc-demo", []],
  ])("%s %s takes %j", (provider, model, expected) => {
    expect(kinds(provider, model)).toEqual(expected);
  });

  it("checks each file's type and size against the provider's limits", () => {
    const claude = modelFileInputs("anthropic", "claude-sonnet-4-5");
    expect(claude.check("image/png", 1000)).toEqual({ input: "image" });
    expect(claude.check("image/png", 6 * MB)).toEqual({ note: "size" });
    expect(claude.check("image/heic", 1000)).toEqual({ note: "type" });
    expect(claude.check("audio/ogg", 1000)).toEqual({ note: "type" });
    expect(modelFileInputs("google", "gemini-2.5-pro").check("audio/ogg", 1000)).toEqual({ input: "audio" });
  });

  it("settings.fileInputs replaces the table's answer, on a known model or an unknown server", () => {
    expect([...modelFileInputs("openai", "gpt-4o", []).kinds]).toEqual([]);
    const local = modelFileInputs("openai-compatible", "llava", ["image"]);
    expect(local.check("image/jpeg", 1000)).toEqual({ input: "image" });
    expect(local.check("application/pdf", 1000)).toEqual({ note: "type" });
  });
});

describe("a prompt window counts attachments", () => {
  const photo: AttachmentRef = {
    blob: "a".repeat(64),
    kind: "image",
    contentType: "image/png",
    size: 900_000,
  };
  const user = (content: string, attachments?: AttachmentRef[]): Message =>
    attachments ? { role: "user", content, attachments } : { role: "user", content };

  it("drops older messages to make room for a picture's tokens, not its bytes", () => {
    const history = [user("a".repeat(4000)), user("b".repeat(4000)), user("look", [photo])];
    // Each text message is ~1,000 tokens; the picture ~1,600 beside its short text.
    expect(promptWindow(history, { maxPromptTokens: 3000 })).toHaveLength(2);
    expect(promptWindow(history, { maxPromptTokens: 1500 })).toHaveLength(1);
    const plain = [user("a".repeat(4000)), user("b".repeat(4000)), user("look")];
    expect(promptWindow(plain, { maxPromptTokens: 1500 })).toHaveLength(2);
  });
});
