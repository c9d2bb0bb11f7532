import { describe, expect, it } from "vitest";
import { signDecision, verifyDecision } from "../src/index.js";

describe("signDecision / verifyDecision", () => {
  const { payload, sig } = signDecision("s3cret", "req_1", "approve", "chan1");

  it("a button's own payload and signature decide, in the scope it was signed for", () => {
    expect(verifyDecision("s3cret", payload, "chan1", sig)).toEqual({
      requestId: "req_1",
      decision: "approve",
    });
  });

  it("another scope, another secret, a changed payload or a forged signature decide nothing", () => {
    expect(verifyDecision("s3cret", payload, "chan2", sig)).toBeUndefined();
    expect(verifyDecision("other", payload, "chan1", sig)).toBeUndefined();
    expect(verifyDecision("s3cret", payload.replace(":a:", ":r:"), "chan1", sig)).toBeUndefined();
    expect(verifyDecision("s3cret", payload, "chan1", `${sig.slice(0, -2)}AA`)).toBeUndefined();
    expect(verifyDecision("s3cret", payload, "chan1", "")).toBeUndefined();
    expect(verifyDecision("s3cret", payload, undefined, sig)).toBeUndefined();
  });
});
