import { randomBytes, randomUUID } from "node:crypto";
import type { DecisionKind } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { decisionLabel, decodeDecision, encodeDecision, pressableDecisions } from "../src/index.js";

const DECISIONS: DecisionKind[] = ["approve", "reject", "edit"];
// The session's own request ids (approvals.ts) and a UUID, the longest id a caller is expected to use.
const sessionId = () => `req_${randomBytes(16).toString("base64url")}`;

describe("decision codec", () => {
  it.each(DECISIONS)("round-trips %s for session request ids and UUIDs", (decision) => {
    for (const requestId of [sessionId(), randomUUID(), "r1"]) {
      expect(decodeDecision(encodeDecision(requestId, decision))).toEqual({ requestId, decision });
    }
  });

  it("fits a UUID request id with every decision into Telegram's 64-byte callback_data", () => {
    for (const decision of DECISIONS) {
      const payload = encodeDecision(randomUUID(), decision);
      expect(Buffer.byteLength(payload, "utf8")).toBeLessThanOrEqual(64);
    }
  });

  it("gives each decision of one request a different payload", () => {
    const id = sessionId();
    expect(new Set(DECISIONS.map((d) => encodeDecision(id, d))).size).toBe(3);
  });

  it.each([
    ["empty", ""],
    ["garbage", "hello"],
    ["no request id", "agentsvc:a:"],
    ["unknown decision code", "agentsvc:x:req_1"],
    ["spelled-out decision (Discord's old custom_id)", "agentsvc:approve:req_1"],
    ["Telegram's old callback_data", "a:req_1"],
    ["another app's payload", "otherapp:a:req_1"],
    ["trailing data", "agentsvc:a:req_1 extra"],
    ["a request id with a separator", "agentsvc:a:req:1"],
    ["an over-long request id", `agentsvc:a:${"x".repeat(129)}`],
  ])("decodes a foreign or garbage payload (%s) to undefined", (_name, payload) => {
    expect(decodeDecision(payload)).toBeUndefined();
  });

  it("refuses to encode a request id it could not decode again", () => {
    expect(() => encodeDecision("has space", "approve")).toThrow(RangeError);
    expect(() => encodeDecision("", "approve")).toThrow(RangeError);
    expect(() => encodeDecision("a:b", "approve")).toThrow(RangeError);
  });

  it("gives no button for edit and keeps the order of the rest", () => {
    expect(pressableDecisions(["approve", "edit", "reject"])).toEqual(["approve", "reject"]);
    expect(pressableDecisions(["reject", "approve"])).toEqual(["reject", "approve"]);
    expect(pressableDecisions(["edit"])).toEqual([]);
  });

  it("labels each decision", () => {
    expect(DECISIONS.map(decisionLabel)).toEqual(["Approve", "Reject", "Edit"]);
  });
});
