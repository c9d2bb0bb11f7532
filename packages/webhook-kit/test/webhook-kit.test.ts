import { describe, expect, it } from "vitest";
import { hubSignature, safeEqualText, sendErrorFor, verifyHubSignature } from "../src/index.js";

describe("X-Hub-Signature-256", () => {
  it("matches GitHub's published test values and refuses any other body", () => {
    const header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    expect(hubSignature("It's a Secret to Everybody", "Hello, World!")).toBe(header);
    const body = new TextEncoder().encode("Hello, World!");
    expect(verifyHubSignature("It's a Secret to Everybody", header, body)).toEqual({ ok: true });
    expect(
      verifyHubSignature("It's a Secret to Everybody", header, new TextEncoder().encode("Hello, World?")),
    ).toEqual({
      ok: false,
      reason: "mismatch",
    });
    expect(verifyHubSignature("", header, body)).toEqual({ ok: false, reason: "no_secret" });
    expect(verifyHubSignature("x", undefined, body)).toEqual({ ok: false, reason: "missing_header" });
    expect(verifyHubSignature("x", "sha1=abc", body)).toEqual({ ok: false, reason: "malformed_header" });
  });

  it("compares texts of any length without throwing", () => {
    expect(safeEqualText("token", "token")).toBe(true);
    expect(safeEqualText("token", "token!")).toBe(false);
    expect(safeEqualText("", "x")).toBe(false);
  });
});

describe("sendErrorFor", () => {
  const answer = (status: number, headers: Record<string, string> = {}) => ({
    status,
    headers: new Headers(headers),
    body: "{}",
  });
  const options = { platform: "p", call: "send" };

  it("waits as told on 429, retries 5xx and 408, and gives up at once on other 4xx", () => {
    expect(sendErrorFor(answer(429, { "retry-after": "3" }), options)).toMatchObject({
      retryAfterMs: 3000,
      permanent: false,
    });
    expect(sendErrorFor(answer(429), options)).toMatchObject({ retryAfterMs: 1000 });
    expect(sendErrorFor(answer(503), options)).toMatchObject({ permanent: false, retryAfterMs: undefined });
    expect(sendErrorFor(answer(408), options)).toMatchObject({ permanent: false });
    expect(sendErrorFor(answer(404), options)).toMatchObject({ permanent: true, status: 404 });
    expect(sendErrorFor(answer(403), { ...options, throttled: true, defaultRetryAfterMs: 5 })).toMatchObject({
      permanent: false,
      retryAfterMs: 5,
    });
  });

  it("classifies through session-core's classifier: 425 retried, 422 permanent, 401 rejected credentials", () => {
    expect(sendErrorFor(answer(425), options)).toMatchObject({ permanent: false, credentials: false });
    expect(sendErrorFor(answer(422), options)).toMatchObject({ permanent: true, credentials: false });
    expect(sendErrorFor(answer(401), { ...options, envVar: "P_TOKEN" })).toMatchObject({
      permanent: false,
      credentials: true,
      envVar: "P_TOKEN",
    });
    expect(sendErrorFor(answer(401), options)).toMatchObject({ permanent: false, credentials: true });
  });

  it("lets a platform rule turn a body code into a verdict", () => {
    const platformRule = () => ({ kind: "credentials" as const });
    expect(sendErrorFor(answer(400), { ...options, platformRule })).toMatchObject({ credentials: true });
  });
});
