import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  type AnyTool,
  createDemoModel,
  defineAgent,
  defineTool,
  RunManager,
  toModelTools,
  WindowMemory,
} from "../src/index.js";

// The scaffolded project's only tool (packages/cli/src/scaffold.ts).
const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  input: v.object({ a: v.number(), b: v.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

function argumentsFor(text: string, tool: AnyTool = add): unknown {
  const prompt: LanguageModelV4Prompt = [{ role: "user", content: [{ type: "text", text }] }];
  return createDemoModel().planStep({ prompt, tools: toModelTools([tool]) }).toolCalls?.[0]?.arguments;
}

describe("the demo model fills numeric arguments from the message's numbers in order", () => {
  it.each([
    ["add 17 and 25", { a: 17, b: 25 }],
    ["add -3 and 2.5", { a: -3, b: 2.5 }],
    ["add these numbers: 4, 5, 6", { a: 4, b: 5 }],
  ])("%s -> %j", (text, want) => {
    expect(argumentsFor(text)).toEqual(want);
  });

  it("uses 0 for a number field the message has no number left for", () => {
    expect(argumentsFor("add 7")).toEqual({ a: 7, b: 0 });
  });

  it("strings keep the message and only number fields take numbers", () => {
    const repeat = defineTool({
      name: "repeat",
      description: "Repeats a text.",
      input: v.object({ times: v.number(), text: v.string(), gap: v.pipe(v.number(), v.integer()) }),
      execute: () => ({}),
    });
    expect(argumentsFor("repeat hi 3 times with gap 2.9", repeat)).toEqual({
      times: 3,
      text: "repeat hi 3 times with gap 2.9",
      gap: 2,
    });
  });

  it("a turn on the scaffold's agent answers add 17 and 25 with 42", async () => {
    const runs = new RunManager({
      agent: defineAgent({ name: "assistant", model: { provider: "demo" }, tools: [add] }),
      memory: new WindowMemory(),
    });
    const result = await runs.start({ input: "add 17 and 25", userId: "u1", conversationId: "c1" }).done;
    expect(result.text).toContain('{"sum":42}');
  });
});
