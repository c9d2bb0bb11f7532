// The token budget's boundary: a window whose estimate equals maxPromptTokens exactly fits, so
// the oldest message that brings it to the budget is kept, and one token less drops it.
import { describe, expect, it } from "vitest";
import type { Message } from "../src/messages.js";
import { estimateTokens, promptWindow } from "../src/prompt-window.js";

const history: Message[] = [
  { role: "user", content: "the first question, a little longer than the rest" },
  { role: "assistant", content: "an answer" },
  { role: "user", content: "a follow-up" },
  { role: "assistant", content: "the last answer" },
];
const cost = (messages: readonly Message[]) => messages.reduce((n, m) => n + estimateTokens(m), 0);

describe("promptWindow at the token budget", () => {
  it("keeps a message that fills maxPromptTokens exactly, and drops it with one token less", () => {
    const budget = cost(history.slice(1));
    expect(promptWindow(history, { maxPromptTokens: budget })).toEqual(history.slice(1));
    expect(promptWindow(history, { maxPromptTokens: budget - 1 })).toEqual(history.slice(2));
  });

  it("counts the summary in the budget: exactly filled with it, the messages still fit", () => {
    const summary: Message = { role: "system", content: "Summary of the earlier conversation: hello" };
    const budget = estimateTokens(summary) + cost(history.slice(2));
    expect(promptWindow(history, { maxPromptTokens: budget }, summary)).toEqual([
      summary,
      ...history.slice(2),
    ]);
    expect(promptWindow(history, { maxPromptTokens: budget - 1 }, summary)).toEqual([
      summary,
      ...history.slice(3),
    ]);
  });
});
