import { describe, expect, it } from "vitest";
import { failureMessage, plainMessage } from "../src/client/messages.js";

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

describe("the status line for a refused call", () => {
  it("for identity_reserved (the webui refuses an account named like the agent route's or a gateway's user) says to rename the account", () => {
    expect(plainMessage("identity_reserved", 403)).toBe(
      "This account cannot use the chat: another part of the service runs under its name. Ask whoever runs it to rename the account.",
    );
  });
});
