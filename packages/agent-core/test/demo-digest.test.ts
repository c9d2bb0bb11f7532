import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { promptDigest } from "../src/models/demo-model.js";

describe("promptDigest (demo model ids)", () => {
  const user = (text: string): LanguageModelV4Prompt[number] => ({
    role: "user",
    content: [{ type: "text", text }],
  });

  it("gives the same digest for the same history", () => {
    expect(promptDigest([user("hi"), user("there")])).toBe(promptDigest([user("hi"), user("there")]));
    expect(promptDigest([user("hi")])).toMatch(/^[0-9a-f]{12}$/);
  });

  it("tells apart histories that differ in text, order or how text is split", () => {
    const digests = new Set([
      promptDigest([user("hi")]),
      promptDigest([user("ho")]),
      promptDigest([user("hi"), user("there")]),
      promptDigest([user("there"), user("hi")]),
      promptDigest([user("hithere")]),
      promptDigest([{ role: "system", content: "hi" }]),
    ]);
    expect(digests.size).toBe(6);
  });
});
