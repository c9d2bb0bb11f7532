// The Messages call's failures, classified with Twilio's own codes first: 20003 (authenticate) is
// a credentials failure naming the Auth Token variable; 429 waits and retries; a bad number is permanent.
import { classifyFailure, isGatewaySendError } from "@agentsvc/session-core";
import { FakeTwilio } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createMessage, twilioRule } from "../src/api.js";

let fake: FakeTwilio | undefined;
afterEach(async () => {
  await fake?.close();
});

describe("twilio failures", () => {
  it("a rejected Auth Token (20003) is a credentials failure naming the variable", async () => {
    const accountSid = "AC0123456789abcdef0123456789abcdef";
    fake = await FakeTwilio.start({ accountSid, authToken: "right-token", number: "+15005550006" });
    const target = {
      apiBaseUrl: fake.url,
      accountSid,
      authToken: "revoked-token",
      from: "+15005550006",
      authTokenEnvVar: "TWILIO_AUTH_TOKEN",
    };
    const err = await createMessage(target, "+15550001111", "hi").catch((e: unknown) => e);
    expect(isGatewaySendError(err)).toBe(true);
    expect(err).toMatchObject({ credentials: true, permanent: false, envVar: "TWILIO_AUTH_TOKEN" });
    expect(String((err as Error).message)).toMatch(/TWILIO_AUTH_TOKEN.*code 20003/);
  });

  it("20003 is credentials whatever the status; 21211 (bad number) is permanent; 429 retries", () => {
    expect(classifyFailure({ status: 400, code: 20003 }, twilioRule)).toEqual({ kind: "credentials" });
    expect(classifyFailure({ status: 400, code: 21211 }, twilioRule)).toEqual({ kind: "permanent" });
    expect(classifyFailure({ status: 429, code: 20429, retryAfter: "2" }, twilioRule)).toEqual({
      kind: "retry",
      retryAfterMs: 2_000,
    });
  });
});
