// maxSteps bounds the model calls of one turn: a turn that needs exactly maxSteps calls completes,
// one that would need a call more fails with max_steps after maxSteps calls (never maxSteps + 1).
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineAgent, defineTool, RunManager } from "../src/index.js";

const user = { userId: "u", conversationId: "c" };
let calls = 0;
const count = defineTool({
  name: "count",
  description: "Counts",
  input: v.object({}),
  execute: () => {
    calls += 1;
    return { calls };
  },
});

/** A turn whose model calls the tool `toolSteps` times, then answers. */
function runs(maxSteps: number, toolSteps: number): RunManager {
  const script = [
    ...Array.from({ length: toolSteps }, () => ({ toolCalls: [{ name: "count", arguments: {} }] })),
    { text: "done counting" },
  ];
  return new RunManager({
    agent: defineAgent({ name: "a", model: { provider: "demo", script }, tools: [count], maxSteps }),
  });
}

describe("maxSteps", () => {
  it("completes a turn that takes exactly maxSteps model calls", async () => {
    calls = 0;
    const result = await runs(3, 2).start({ input: "count twice", ...user }).done;
    expect(result.status).toBe("completed");
    expect(result.text).toContain("done counting");
    expect(calls).toBe(2);
  });

  it("fails with max_steps after maxSteps model calls when the turn needs one more", async () => {
    calls = 0;
    const result = await runs(3, 3).start({ input: "count three times", ...user }).done;
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "max_steps" });
    expect(result.error?.message).toContain("maxSteps (3)");
    // Three model calls, each asking for the tool: three runs, no fourth call.
    expect(calls).toBe(3);
  });
});
