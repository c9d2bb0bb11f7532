import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createDemoModel, defineTool, toModelTools } from "../src/index.js";

// The hello example's tools: what a first user is told to try.
const tools = toModelTools([
  defineTool({
    name: "clock",
    description: "Tells the current time in UTC.",
    input: v.object({}),
    execute: () => ({}),
  }),
  defineTool({
    name: "send_note",
    description: "Sends a short note to the team.",
    input: v.object({ text: v.string() }),
    execute: () => ({}),
  }),
  defineTool({
    name: "add",
    description: "Adds two numbers.",
    input: v.object({ a: v.number(), b: v.number() }),
    execute: () => ({}),
  }),
]);

function toolFor(text: string): string | undefined {
  const prompt: LanguageModelV4Prompt = [{ role: "user", content: [{ type: "text", text }] }];
  return createDemoModel().planStep({ prompt, tools }).toolCalls?.[0]?.name;
}

describe("demo model picks a tool from the words of its name and description", () => {
  it.each([
    ["what time is it?", "clock"],
    ["What's the current time in UTC", "clock"],
    ["please send a note saying the build is green", "send_note"],
    ["Send the team a message", "send_note"],
    ["can you add 2 and 3", "add"],
    ["add these numbers: 4, 5", "add"],
  ])("%s -> %s", (text, tool) => {
    expect(toolFor(text)).toBe(tool);
  });

  it.each(["hello there", "Say hello", "tell me a story", "what is it?", "thanks!"])(
    "calls no tool for small talk: %s",
    (text) => {
      expect(toolFor(text)).toBeUndefined();
    },
  );

  it("still prefers a tool named outright", () => {
    expect(toolFor("use clock to send the note")).toBe("clock");
  });
});
