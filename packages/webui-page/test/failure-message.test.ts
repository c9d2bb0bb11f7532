import { describe, expect, it } from "vitest";
import { failureMessage } from "../src/client/messages.js";

describe("the note under a failed reply", () => {
  it("for budget_exceeded says the budget is used up and when to try again, never the server's text", () => {
    expect(failureMessage("budget_exceeded", 25 * 60_000)).toBe(
      "This chat has used up its AI budget for now; try again in 25 min.",
    );
    expect(failureMessage("budget_exceeded", 5 * 3_600_000 + 1)).toBe(
      "This chat has used up its AI budget for now; try again in 6 h.",
    );
    expect(failureMessage("budget_exceeded")).toBe(
      "This chat has used up its AI budget for now; try again later.",
    );
  });
});
