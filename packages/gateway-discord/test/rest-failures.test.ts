// What a Discord REST answer tells the outbox (api.ts), against the Discord fake over HTTP with the
// documented bodies: a 429 names its wait as float seconds in `retry_after`
// (https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit), an error carries
// `code` and `message` (https://discord.com/developers/docs/reference#error-messages), a 401 is the
// token (named by its variable), and no id or interaction token is written into an error or a log.
import { isGatewaySendError } from "@agentsvc/adapter-kit";
import { DiscordFake } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiscordRest } from "../src/api.js";

let fake: DiscordFake;
let rest: DiscordRest;
const CHANNEL = "800000000000000001";

beforeAll(async () => {
  fake = await DiscordFake.start();
  // A trailing slash on the configured base is dropped, not doubled into every path.
  rest = new DiscordRest(`${fake.apiBaseUrl}//`, fake.token, 5_000, "DISCORD_TOKEN");
});

afterAll(() => fake.close());

async function failure(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isGatewaySendError(err)) throw new Error(`expected a GatewaySendError, got ${String(err)}`);
  return err;
}

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body,
});

describe("Discord REST", () => {
  it("sends the bot token as `Bot <token>` with a DiscordBot user agent, JSON both ways", async () => {
    const msg = await rest.call<{ id: string; content: string }>("POST", `/channels/${CHANNEL}/messages`, {
      content: "hello",
    });
    expect(msg.content).toBe("hello");
    const call = fake.calls.at(-1);
    expect(call).toMatchObject({
      method: "POST",
      path: `/channels/${CHANNEL}/messages`,
      auth: `Bot ${fake.token}`,
    });
    expect(call?.body).toEqual({ content: "hello" });
    expect(call?.userAgent).toMatch(/^DiscordBot \(https?:\/\/\S+, [\w.]+\)$/);
  });

  it("a 429 waits the body's retry_after (float seconds, rounded up to the millisecond), more precise than the header", async () => {
    fake.failNext(
      "POST .*/messages$",
      answer(
        429,
        { message: "You are being rate limited.", retry_after: 1.2341, global: false },
        { "retry-after": "2" },
      ),
    );
    const err = await failure(rest.call("POST", `/channels/${CHANNEL}/messages`, { content: "x" }));
    expect(err.retryAfterMs).toBe(1235);
    expect(err.permanent).toBe(false);
  });

  it("a refusal is permanent and says Discord's code and message; code 0 is no code", async () => {
    fake.failNext("POST .*/messages$", answer(403, { message: "Missing Permissions", code: 50013 }));
    const err = await failure(rest.call("POST", `/channels/${CHANNEL}/messages`, { content: "x" }));
    expect(err.permanent).toBe(true);
    expect(err.status).toBe(403);
    expect(err.message).toContain("code 50013");
    expect(err.message).toContain("(Missing Permissions)");
    fake.failNext("POST .*/messages$", answer(400, { message: "Bad Request", code: 0 }));
    const zero = await failure(rest.call("POST", `/channels/${CHANNEL}/messages`, { content: "x" }));
    expect(zero.message).not.toContain("code");
    expect(zero.message).toContain("(Bad Request)");
  });

  it("a 5xx without retry_after is retried with no wait of Discord's (the outbox's backoff applies)", async () => {
    fake.failNext("POST .*/messages$", answer(502, { message: "Bad Gateway", code: 0 }));
    const err = await failure(rest.call("POST", `/channels/${CHANNEL}/messages`, { content: "x" }));
    expect(err).toMatchObject({ permanent: false, credentials: false, status: 502 });
    expect(err.retryAfterMs).toBeUndefined();
  });

  it("a body without Discord's fields is classified by its status alone", async () => {
    fake.failNext("POST .*/messages$", answer(403, { retry_after: "soon", code: "x", message: 7 }));
    const err = await failure(rest.call("POST", `/channels/${CHANNEL}/messages`, { content: "x" }));
    expect(err.retryAfterMs).toBeUndefined();
    expect(err.message).toBe("discord: POST /channels/:id/messages answered 403");
  });

  it("a 401 is the token: the gateway stops naming its variable", async () => {
    const wrong = new DiscordRest(fake.apiBaseUrl, "not-the-token", 5_000, "DISCORD_TOKEN");
    const err = await failure(wrong.call("GET", "/users/@me"));
    expect(err.credentials).toBe(true);
    expect(err.envVar).toBe("DISCORD_TOKEN");
    expect(err.message).toContain("DISCORD_TOKEN");
  });

  it("a call the caller already gave up on (its signal aborted) is not made", async () => {
    const before = fake.calls.length;
    const call = rest.call(
      "POST",
      `/channels/${CHANNEL}/messages`,
      { content: "late" },
      AbortSignal.abort(new Error("gave up")),
    );
    await expect(call).rejects.toThrow("gave up");
    expect(fake.calls.length).toBe(before);
  });

  it("names the route in errors without ids or an interaction's token", async () => {
    const token = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OnNlY3JldA";
    const err = await failure(
      rest.call("POST", `/interactions/1234567890123456789/${token}/callback`, { type: 6 }),
    );
    expect(err.message).toContain("/interactions/:id/:token/callback");
    expect(err.message).not.toContain(token);
    expect(err.message).not.toContain("1234567890123456789");
  });
});
