// The decision a reply to an approval mail makes, read from its first non-blank line as people type
// it: indented, or the decision word followed by punctuation alone.
import { describe, expect, it } from "vitest";
import { decisionText } from "../src/inbound.js";

const both = ["approve", "reject"] as const;

describe("the decision of a reply's first line", () => {
  it("an indented first line decides, and the decision is delivered without the indent", () => {
    expect(decisionText("   yes  \nthanks", [...both])).toBe("yes");
    expect(decisionText("  Approve, go ahead", [...both])).toBe("approve");
  });

  it("a reject word followed only by a dash is a reject without a reason", () => {
    expect(decisionText("Rejected -", [...both])).toBe("reject");
  });
});
