// A refused token (https://api.slack.com/methods/chat.postMessage#errors, https://api.slack.com/apis/socket-mode)
// is reported once through context.credentialsRejected naming the variable to fix (the session logs
// the error and stops the gateway); a send fails as a credentials error
// (kept for after the fix, not retried as if it could succeed); 429 waits exactly Retry-After.
import { isGatewaySendError } from "@agentsvc/adapter-kit";
import { captureLogs, eventually, SlackFake } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createGateway } from "../src/index.js";
import { type RecordingContext, recordingContext } from "./context.js";

let fake: SlackFake;
let rec: RecordingContext;
let logs: ReturnType<typeof captureLogs>;
let gateway: ReturnType<typeof createGateway>;

async function start(): Promise<void> {
  logs = captureLogs();
  rec = recordingContext(logs.logger);
  gateway = createGateway({
    name: "slack",
    botTokenEnvVar: "SLACK_BOT",
    appTokenEnvVar: "SLACK_APP",
    env: { SLACK_BOT: fake.botToken, SLACK_APP: fake.appToken },
    apiBaseUrl: fake.apiBaseUrl,
    backoff: { baseMs: 20, maxMs: 100 },
  });
  await gateway.start(rec.context);
}

const rejections = () => rec.rejected;

afterEach(async () => {
  await gateway.stop();
  rec.stop();
  await fake.close();
});

describe("slack credentials", () => {
  for (const code of ["invalid_auth", "account_inactive", "token_revoked", "not_authed"]) {
    it(`a bot token answered ${code} by auth.test stops the gateway naming SLACK_BOT, without retrying`, async () => {
      fake = await SlackFake.start();
      fake.revoke("bot", code);
      await start();
      await eventually(() => rejections().length === 1, "the error");
      expect(rejections()[0]?.envVar).toBe("SLACK_BOT");
      expect(rejections()[0]?.detail).toContain(code);
      await new Promise((r) => setTimeout(r, 300));
      expect(fake.calls.filter((c) => c.method === "auth.test")).toHaveLength(1);
      expect(fake.connections).toHaveLength(0);
      expect(rejections()).toHaveLength(1);
    });
  }

  it("an app token answered token_revoked by apps.connections.open stops the gateway naming SLACK_APP", async () => {
    fake = await SlackFake.start();
    fake.revoke("app", "token_revoked");
    await start();
    await eventually(() => rejections().length === 1, "the error");
    expect(rejections()[0]?.envVar).toBe("SLACK_APP");
    expect(rejections()[0]?.detail).toContain("token_revoked");
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.calls.filter((c) => c.method === "apps.connections.open")).toHaveLength(1);
  });

  it("a reply with a revoked bot token fails as a credentials error naming SLACK_BOT", async () => {
    fake = await SlackFake.start();
    await start();
    await eventually(() => fake.openConnections.length === 1, "the connection");
    fake.revoke("bot", "account_inactive");
    const err: unknown = await gateway
      .send("D0001", "hello", { idempotencyKey: "k", attempt: 1 })
      .catch((e) => e);
    expect(
      isGatewaySendError(err) && {
        credentials: err.credentials,
        envVar: err.envVar,
        permanent: err.permanent,
      },
    ).toEqual({
      credentials: true,
      envVar: "SLACK_BOT",
      permanent: false,
    });
  });

  it("a reply answered 429 ratelimited carries exactly the Retry-After wait", async () => {
    fake = await SlackFake.start();
    await start();
    fake.failNext("chat.postMessage", { status: 429, retryAfter: 3 });
    const err: unknown = await gateway
      .send("D0001", "hello", { idempotencyKey: "k", attempt: 1 })
      .catch((e) => e);
    expect(isGatewaySendError(err) && { retryAfterMs: err.retryAfterMs, permanent: err.permanent }).toEqual({
      retryAfterMs: 3_000,
      permanent: false,
    });
  });

  it("channel_not_found is permanent (dead-lettered, not retried)", async () => {
    fake = await SlackFake.start();
    await start();
    fake.failNext("chat.postMessage", { error: "channel_not_found" });
    const err: unknown = await gateway
      .send("D0001", "hello", { idempotencyKey: "k", attempt: 1 })
      .catch((e) => e);
    expect(isGatewaySendError(err) && [err.permanent, err.credentials]).toEqual([true, false]);
  });
});
