import { describe, expect, it } from "vitest";
import { GatewaySendError, isGatewaySendError } from "../src/index.js";

describe("GatewaySendError", () => {
  it("is recognised across copies of the package (by its registered brand, not instanceof)", () => {
    const own = new GatewaySendError("rate limited", { status: 429, retryAfterMs: 3000 });
    // What another copy's error looks like to this copy: a different class with the same brand.
    const foreign = Object.assign(new Error("x"), {
      [Symbol.for("agentsvc.GatewaySendError")]: true,
      retryAfterMs: 5,
    });
    expect(isGatewaySendError(own)).toBe(true);
    expect(isGatewaySendError(foreign)).toBe(true);
    expect(isGatewaySendError(new Error("plain"))).toBe(false);
    expect(isGatewaySendError(undefined)).toBe(false);
  });
});
