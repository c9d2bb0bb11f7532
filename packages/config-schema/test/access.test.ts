import { describe, expect, it } from "vitest";
import { expectError, loadErrors, loadOk } from "./helpers.js";

describe("sender access keys on push gateway entries", () => {
  it("reads policies, allowlists (numeric ids as strings), pairing ttl, refusal text and both rate limits", async () => {
    const project = await loadOk({
      "gateways/tg.yaml": [
        "type: telegram",
        "botTokenEnvVar: TG",
        "dmPolicy: pairing",
        "allowFrom: [123456789, '42']",
        "groupPolicy: allowlist",
        "groupAllowFrom: [-1001234]",
        "pairingCodeTtlSeconds: 600",
        "refusalReply: false",
        "rateLimit: { messages: 5, perSeconds: 60 }",
        "gatewayRateLimit: { messages: 100, perSeconds: 60 }",
        "",
      ].join("\n"),
    });
    const entry = project.pushGateways[0]! as unknown as Record<string, unknown>;
    expect(entry).toMatchObject({
      dmPolicy: "pairing",
      allowFrom: ["123456789", "42"],
      groupPolicy: "allowlist",
      groupAllowFrom: ["-1001234"],
      pairingCodeTtlSeconds: 600,
      refusalReply: false,
      rateLimit: { messages: 5, perSeconds: 60 },
      gatewayRateLimit: { messages: 100, perSeconds: 60 },
    });
  });

  it("names the allowed policies and the rate-limit keys when they are wrong", async () => {
    const errors = await loadErrors({
      "gateways/sms.yaml": [
        "type: twilio",
        "accountSidEnvVar: A",
        "authTokenEnvVar: B",
        "fromEnvVar: C",
        "dmPolicy: friends",
        "groupPolicy: pairing",
        "rateLimit: { messages: 0, perSecond: 60 }",
        "",
      ].join("\n"),
    });
    expectError(errors, "gateways/sms.yaml", "dmPolicy", /open, allowlist, pairing, disabled/);
    expectError(errors, "gateways/sms.yaml", "groupPolicy", /open, allowlist, disabled/);
    expectError(errors, "gateways/sms.yaml", "rateLimit.messages", /at least 1/);
    expectError(errors, "gateways/sms.yaml", "rateLimit.perSecond", /did you mean "perSeconds"/);
  });
});
