import { describe, expect, it } from "vitest";
import {
  classifyFailure,
  type FailureFacts,
  isGatewaySendError,
  type PlatformRule,
  sendFailure,
} from "../src/index.js";

describe("classifyFailure: the defaults every platform shares", () => {
  const rows: [string, FailureFacts, ReturnType<typeof classifyFailure>][] = [
    ["a network error is retried", { network: true, detail: "ECONNRESET" }, { kind: "retry" }],
    ["a failure with no answer at all is retried", { detail: "boom" }, { kind: "retry" }],
    ["408 request timeout is retried", { status: 408 }, { kind: "retry" }],
    ["425 too early is retried", { status: 425 }, { kind: "retry" }],
    ["429 without a wait is retried with backoff", { status: 429 }, { kind: "retry" }],
    [
      "429 waits Retry-After seconds",
      { status: 429, retryAfter: "7" },
      { kind: "retry", retryAfterMs: 7000 },
    ],
    [
      "429 waits the platform's own retry field",
      { status: 429, retryAfterMs: 2500 },
      { kind: "retry", retryAfterMs: 2500 },
    ],
    ["500 is retried", { status: 500 }, { kind: "retry" }],
    ["502 is retried", { status: 502 }, { kind: "retry" }],
    ["503 with Retry-After waits", { status: 503, retryAfter: "2" }, { kind: "retry", retryAfterMs: 2000 }],
    ["400 is permanent", { status: 400 }, { kind: "permanent" }],
    ["403 is permanent", { status: 403 }, { kind: "permanent" }],
    ["404 is permanent", { status: 404 }, { kind: "permanent" }],
    ["413 is permanent", { status: 413 }, { kind: "permanent" }],
    ["422 is permanent", { status: 422 }, { kind: "permanent" }],
    ["410 (any other 4xx) is permanent", { status: 410 }, { kind: "permanent" }],
    ["401 means the credentials were rejected", { status: 401 }, { kind: "credentials" }],
    ["a 400 keeps no wait even with Retry-After", { status: 400, retryAfter: "5" }, { kind: "permanent" }],
  ];
  it.each(rows)("%s", (_name, facts, expected) => {
    expect(classifyFailure(facts)).toEqual(expected);
  });

  it("429 waits until the Retry-After HTTP date", () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    const verdict = classifyFailure({ status: 429, retryAfter: at });
    expect(verdict.kind).toBe("retry");
    // An HTTP date has whole seconds: the wait is within the last second before the date.
    expect(verdict.retryAfterMs).toBeGreaterThan(28_000);
    expect(verdict.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it("a Retry-After date in the past waits nothing rather than a negative time", () => {
    const at = new Date(Date.now() - 60_000).toUTCString();
    expect(classifyFailure({ status: 429, retryAfter: at })).toEqual({ kind: "retry", retryAfterMs: 0 });
  });
});

describe("classifyFailure: a platform rule is consulted first", () => {
  // Slack answers 200 with `ok: false`; WhatsApp/Graph answers 400 or 401 with a code in the body.
  const rule: PlatformRule = (f) => {
    if (f.code === "invalid_auth" || f.code === 190) return { kind: "credentials" };
    if (f.code === 130429) return { kind: "retry" };
    if (f.code === "ratelimited") return { kind: "retry", retryAfterMs: 9000 };
    return undefined;
  };

  it("turns a platform code into credentials even on a status the defaults call permanent", () => {
    expect(classifyFailure({ status: 400, code: 190 }, rule)).toEqual({ kind: "credentials" });
    expect(classifyFailure({ status: 200, code: "invalid_auth" }, rule)).toEqual({ kind: "credentials" });
  });

  it("turns a 400 with a throttling code into a retry that still honours Retry-After", () => {
    expect(classifyFailure({ status: 400, code: 130429, retryAfter: "4" }, rule)).toEqual({
      kind: "retry",
      retryAfterMs: 4000,
    });
  });

  it("keeps the rule's own wait", () => {
    expect(classifyFailure({ status: 200, code: "ratelimited", retryAfter: "1" }, rule)).toEqual({
      kind: "retry",
      retryAfterMs: 9000,
    });
  });

  it("falls through to the defaults when the rule has nothing to say", () => {
    expect(classifyFailure({ status: 404, code: "channel_not_found" }, rule)).toEqual({ kind: "permanent" });
    expect(classifyFailure({ status: 401 }, rule)).toEqual({ kind: "credentials" });
  });
});

describe("sendFailure", () => {
  it("builds the outbox's error with the verdict's flags and names the call", () => {
    const err = sendFailure(
      { status: 429, retryAfter: "3", detail: "slow down" },
      { platform: "telegram", call: "sendMessage" },
    );
    expect(isGatewaySendError(err)).toBe(true);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 3000, permanent: false, credentials: false });
    expect(err.message).toBe("telegram: sendMessage answered 429 (slow down)");
  });

  it("marks a permanent refusal", () => {
    const err = sendFailure({ status: 403 }, { platform: "discord", call: "create message" });
    expect(err).toMatchObject({ permanent: true, credentials: false, status: 403 });
  });

  it("marks rejected credentials with the variable to fix", () => {
    const err = sendFailure(
      { status: 401, detail: "Unauthorized" },
      { platform: "telegram", call: "sendMessage", envVar: "TELEGRAM_BOT_TOKEN" },
    );
    expect(err).toMatchObject({ credentials: true, permanent: false, envVar: "TELEGRAM_BOT_TOKEN" });
    expect(err.message).toContain("TELEGRAM_BOT_TOKEN");
  });

  it("applies the platform rule", () => {
    const err = sendFailure(
      { status: 200, code: "invalid_auth" },
      {
        platform: "slack",
        call: "chat.postMessage",
        envVar: "SLACK_BOT_TOKEN",
        platformRule: (f) => (f.code === "invalid_auth" ? { kind: "credentials" } : undefined),
      },
    );
    expect(err.credentials).toBe(true);
    expect(err.message).toContain("code invalid_auth");
  });

  it("describes a network failure and keeps its cause", () => {
    const cause = new Error("ECONNREFUSED");
    const err = sendFailure(
      { network: true, detail: "ECONNREFUSED" },
      { platform: "http", call: "callback", cause },
    );
    expect(err).toMatchObject({ permanent: false, credentials: false, status: undefined });
    expect(err.cause).toBe(cause);
    expect(err.message).toBe("http: callback failed (network) (ECONNREFUSED)");
  });
});
