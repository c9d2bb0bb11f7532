import { describe, expect, it } from "vitest";
import { describeRequest, matchDecisionText } from "../src/index.js";

describe("matchDecisionText", () => {
  const both = ["approve", "reject"] as const;

  it("reads approve, yes and a as approval, case-insensitively", () => {
    for (const t of ["approve", "YES", " a ", "Approve!", "y", "ok."]) {
      expect(matchDecisionText(t, [...both])).toEqual({ decision: "approve" });
    }
  });

  it("reads reject, no and r as rejection, with an optional reason after a colon", () => {
    expect(matchDecisionText("No", [...both])).toEqual({ decision: "reject" });
    expect(matchDecisionText("r", [...both])).toEqual({ decision: "reject" });
    expect(matchDecisionText("reject: too expensive", [...both])).toEqual({
      decision: "reject",
      reason: "too expensive",
    });
  });

  it("treats any other text as an ordinary message", () => {
    for (const t of ["a nice day", "yes please do it", "what does it do?", "approve: x", ""]) {
      expect(matchDecisionText(t, [...both])).toBeUndefined();
    }
  });

  it("never matches a decision that is not allowed", () => {
    expect(matchDecisionText("yes", ["reject"])).toBeUndefined();
    expect(matchDecisionText("no", ["approve"])).toBeUndefined();
  });
});

describe("describeRequest", () => {
  it("names the tool, shows its arguments and lists each allowed decision", () => {
    const text = describeRequest("send_email", { to: "a@b.c" }, ["approve", "reject"]);
    expect(text).toContain('"send_email"');
    expect(text).toContain('"to": "a@b.c"');
    expect(text).toContain("- approve");
    expect(text).toContain("- reject");
    expect(text).not.toContain("- edit");
  });

  it("shortens very long arguments", () => {
    const text = describeRequest("t", { blob: "z".repeat(5000) }, ["approve"]);
    expect(text.length).toBeLessThan(1000);
  });
});
