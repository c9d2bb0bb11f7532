// What a Bot API answer tells the outbox (api.ts), against the Telegram fake over HTTP: a failure is
// `ok: false` with `error_code` and `description` (https://core.telegram.org/bots/api#making-requests),
// a 429 names its wait in `parameters.retry_after` seconds
// (https://core.telegram.org/bots/api#responseparameters), a 401 is the token, and so is a 404 (every
// method exists: the token in the path is malformed). The token is in every URL, so it is never in
// an error.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isGatewaySendError, PlatformCallError } from "@agentsvc/adapter-kit";
import { TelegramFake } from "@agentsvc/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BotApi, sendFailureOf } from "../src/api.js";

let fake: TelegramFake;
let api: BotApi;

// A fake per test: a fault one test queues and never uses (an aborted call may never reach the
// fake) must not answer the next test's call, whatever the order.
beforeEach(async () => {
  fake = await TelegramFake.start();
  // Trailing slashes on the configured base are dropped, not doubled into every path.
  api = new BotApi(`${fake.url}//`, fake.token, 5_000);
});

afterEach(() => fake.close());

/** The outbox's error for a failed call, as the gateway makes it. */
async function failure(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformCallError))
    throw new Error(`expected a PlatformCallError, got ${String(err)}`);
  const sent = sendFailureOf(err, "TELEGRAM_BOT_TOKEN");
  expect(isGatewaySendError(sent)).toBe(true);
  return sent;
}

describe("the Bot API", () => {
  it("answers a call's result, posted as JSON to /bot<token>/<method>", async () => {
    const me = await api.call<{ username: string }>("getMe", {});
    expect(me.username).toBe(fake.bot.username);
    const sent = await api.call<{ message_id: number; text: string }>("sendMessage", {
      chat_id: 42,
      text: "hi",
    });
    expect(sent.text).toBe("hi");
    expect(fake.calls.at(-1)).toMatchObject({ method: "sendMessage", params: { chat_id: 42, text: "hi" } });
  });

  it("a 429 waits parameters.retry_after seconds", async () => {
    fake.failNext("sendMessage", { status: 429, retryAfter: 3 });
    const err = await failure(api.call("sendMessage", { chat_id: 42, text: "hi" }));
    expect(err.retryAfterMs).toBe(3_000);
    expect(err.permanent).toBe(false);
  });

  it("a refusal is permanent, with Telegram's status and description", async () => {
    fake.failNext("sendMessage", { status: 400, description: "Bad Request: chat not found" });
    const err = await failure(api.call("sendMessage", { chat_id: 42, text: "hi" }));
    expect(err.permanent).toBe(true);
    expect(err.status).toBe(400);
    expect(err.message).toBe("telegram: sendMessage answered 400 (Bad Request: chat not found)");
    expect(err.retryAfterMs).toBeUndefined();
  });

  it("a 5xx is retried", async () => {
    fake.failNext("sendMessage", { status: 502 });
    const err = await failure(api.call("sendMessage", { chat_id: 42, text: "hi" }));
    expect(err).toMatchObject({ permanent: false, credentials: false, status: 502 });
    expect(err.retryAfterMs).toBeUndefined();
  });

  it("a 401 and a 404 are the token: the gateway stops naming its variable, and the token is in no error", async () => {
    const wrong = new BotApi(fake.url, "123:wrong-token", 5_000);
    const unauthorized = await failure(wrong.call("getMe", {}));
    expect(unauthorized).toMatchObject({ credentials: true, envVar: "TELEGRAM_BOT_TOKEN", status: 401 });
    const notFound = await failure(api.call("noSuchMethod", {}));
    expect(notFound).toMatchObject({ credentials: true, status: 404 });
    for (const err of [unauthorized, notFound]) {
      expect(err.message).not.toContain("wrong-token");
      expect(err.message).not.toContain(fake.token);
    }
  });

  it("an error page without the Bot API's body (a proxy's) is classified by its HTTP status, and quoted", async () => {
    const proxy = createServer((_req, res) => {
      res.writeHead(403, { "content-type": "text/html" });
      res.end("<html><body>Forbidden by the proxy</body></html>");
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const behind = new BotApi(`http://127.0.0.1:${port}`, fake.token, 5_000);
      const err = await failure(behind.call("sendMessage", { chat_id: 42, text: "hi" }));
      expect(err).toMatchObject({ status: 403, permanent: true });
      expect(err.message).toContain("Forbidden by the proxy");
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("a file's download URL holds the token under /file/bot<token>/", () => {
    expect(api.fileUrl("photos/file_1.jpg")).toBe(`${fake.url}/file/bot${fake.token}/photos/file_1.jpg`);
  });

  it("a call the caller gave up on (its signal aborted) stops waiting", async () => {
    fake.failNext("sendMessage", { hang: true });
    const controller = new AbortController();
    const call = api.call("sendMessage", { chat_id: 42, text: "hi" }, controller.signal);
    controller.abort(new Error("the session gave up on this preview"));
    await expect(call).rejects.toThrow("the session gave up on this preview");
  });

  it("a call that is never answered fails at its own timeout, as a retry", async () => {
    fake.failNext("getUpdates", { hang: true });
    const err = await failure(api.call("getUpdates", { timeout: 0 }, undefined, 200));
    expect(err).toMatchObject({ permanent: false, credentials: false });
    expect(err.message).toContain("no answer within 200 ms");
  });
});
