// The Graph messages call's failures, classified with WhatsApp's own codes first: 190 (token
// expired or revoked) is a credentials failure naming the variable; throughput codes wait and retry.
import { classifyFailure, isGatewaySendError } from "@agentsvc/session-core";
import { FakeWhatsApp } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { graphRule, postMessage } from "../src/api.js";

let fake: FakeWhatsApp | undefined;
afterEach(async () => {
  await fake?.close();
});

describe("graph failures", () => {
  it("a token Graph rejects (code 190) is a credentials failure naming the variable", async () => {
    fake = await FakeWhatsApp.start({ appSecret: "s", accessToken: "good-token", phoneNumberId: "1065" });
    const target = {
      apiBaseUrl: fake.url,
      apiVersion: "v21.0",
      phoneNumberId: "1065",
      accessToken: "revoked-token",
      accessTokenEnvVar: "WA_ACCESS_TOKEN",
    };
    const err = await postMessage(target, { to: "15550001111", type: "text", text: { body: "hi" } }).catch(
      (e: unknown) => e,
    );
    expect(isGatewaySendError(err)).toBe(true);
    expect(err).toMatchObject({ credentials: true, permanent: false, envVar: "WA_ACCESS_TOKEN" });
    expect(String((err as Error).message)).toMatch(/WA_ACCESS_TOKEN.*code 190/);
  });

  it("code 190 is credentials whatever the status; throughput codes retry after a second", () => {
    expect(classifyFailure({ status: 400, code: 190 }, graphRule)).toEqual({ kind: "credentials" });
    for (const code of [130429, 131056, 80007, 4])
      expect(classifyFailure({ status: 400, code }, graphRule)).toEqual({
        kind: "retry",
        retryAfterMs: 1_000,
      });
    expect(classifyFailure({ status: 400, code: 131026 }, graphRule)).toEqual({ kind: "permanent" });
  });
});
