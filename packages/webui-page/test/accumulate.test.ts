import { describe, expect, it } from "vitest";
import { TurnAccumulator } from "../src/client/accumulate.js";

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: "c1",
  object: "chat.completion.chunk",
  created: 0,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: null }],
  ...extra,
});

describe("turn accumulation", () => {
  it("concatenates content and reasoning fragments", () => {
    const acc = new TurnAccumulator();
    acc.apply(chunk({ role: "assistant", reasoning: "Let me " }));
    acc.apply(chunk({ reasoning: "think." }));
    acc.apply(chunk({ content: "Hel" }));
    const r = acc.apply(chunk({ content: "lo" }));
    expect(acc.reasoning).toBe("Let me think.");
    expect(acc.content).toBe("Hello");
    expect(r.content).toBe("lo");
  });

  it("accumulates tool-call argument fragments per index", () => {
    const acc = new TurnAccumulator();
    acc.apply(
      chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "search", arguments: '{"q":' } }] }),
    );
    acc.apply(chunk({ tool_calls: [{ index: 1, id: "b", function: { name: "clock", arguments: "{}" } }] }));
    acc.apply(chunk({ tool_calls: [{ index: 0, function: { arguments: '"cats"}' } }] }));
    expect(acc.toolCalls.map((t) => [t.id, t.name, t.arguments])).toEqual([
      ["a", "search", '{"q":"cats"}'],
      ["b", "clock", "{}"],
    ]);
  });

  it("starts a new call when a used index arrives with a different id (next model step)", () => {
    const acc = new TurnAccumulator();
    acc.apply(chunk({ content: "Checking." }));
    acc.apply(chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "one", arguments: "{}" } }] }));
    acc.apply(chunk({ tool_calls: [{ index: 0, id: "b", function: { name: "two", arguments: "{}" } }] }));
    acc.apply(chunk({ content: "Done." }));
    expect(acc.toolCalls.map((t) => t.name)).toEqual(["one", "two"]);
    expect(acc.content).toBe("Checking.\n\nDone.");
  });

  it("starts a new paragraph when a later model step of the turn (new chunk id) brings text", () => {
    const acc = new TurnAccumulator();
    acc.apply(chunk({ role: "assistant", content: "First answer." }, { id: "step-1" }));
    acc.apply(chunk({ content: " More." }, { id: "step-1" }));
    // A steer spliced in before the next model call: no tool call in between.
    acc.apply(chunk({ role: "assistant", content: "Second" }, { id: "step-2" }));
    acc.apply(chunk({ content: " answer." }, { id: "step-2" }));
    expect(acc.content).toBe("First answer. More.\n\nSecond answer.");
  });

  it("separates the reasoning of successive model steps", () => {
    const acc = new TurnAccumulator();
    acc.apply(chunk({ role: "assistant", reasoning: "I will call it." }, { id: "step-1" }));
    acc.apply(
      chunk(
        { tool_calls: [{ index: 0, id: "a", function: { name: "t", arguments: "{}" } }] },
        { id: "step-1" },
      ),
    );
    const r = acc.apply(chunk({ role: "assistant", reasoning: "I have the result." }, { id: "step-2" }));
    expect(acc.reasoning).toBe("I will call it.\n\nI have the result.");
    expect(r.reasoning).toBe("\n\nI have the result.");
  });

  it("starts a new paragraph on a role chunk even without chunk ids", () => {
    const acc = new TurnAccumulator();
    acc.apply({ choices: [{ delta: { role: "assistant", content: "One." } }] });
    acc.apply({ choices: [{ delta: { role: "assistant", content: "Two." } }] });
    expect(acc.content).toBe("One.\n\nTwo.");
  });

  it("flags a middleware_stop chunk as a suspension", () => {
    const acc = new TurnAccumulator();
    const r = acc.apply(chunk({}, { kind: "middleware_stop" }));
    expect(r.suspended).toBe(true);
    expect(acc.suspended).toBe(true);
  });

  it("ignores malformed envelopes and fragments", () => {
    const acc = new TurnAccumulator();
    acc.apply(null);
    acc.apply({ choices: "x" });
    acc.apply(chunk({ content: 5, tool_calls: [{ id: "no-index" }, null] }));
    expect(acc.content).toBe("");
    expect(acc.toolCalls).toEqual([]);
  });
});
