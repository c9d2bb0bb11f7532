// The Telegram fake keeps the Bot API's promises a bot relies on: offsets confirm, a second
// poller ends the first with 409, and HTML is checked like the API checks it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseTelegramHtml, TelegramFake } from "../src/index.js";

let fake: TelegramFake;
const call = async (method: string, body: unknown) => {
  const res = await fetch(`${fake.url}/bot${fake.token}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { ok: boolean; result?: unknown; description?: string; error_code?: number },
  };
};

beforeEach(async () => {
  fake = await TelegramFake.start();
});
afterEach(() => fake.close());

describe("telegram fake", () => {
  it("returns an update until getUpdates is called with a higher offset, then forgets it", async () => {
    const id = fake.chat.userSends({ chatId: 7, text: "hi" });
    const first = await call("getUpdates", { timeout: 0 });
    const again = await call("getUpdates", { timeout: 0 });
    expect(first.body.result).toEqual(again.body.result);
    const confirmed = fake.confirmed(id);
    const after = await call("getUpdates", { offset: id + 1, timeout: 0 });
    await confirmed;
    expect(after.body.result).toEqual([]);
  });

  it("a long-poll waits for the next update and a second poller ends the first with 409", async () => {
    const waiting = call("getUpdates", { timeout: 5 });
    await new Promise((r) => setTimeout(r, 50));
    const second = call("getUpdates", { timeout: 5 });
    const first = await waiting;
    expect(first.status).toBe(409);
    expect(first.body.description).toMatch(/terminated by other getUpdates request/);
    fake.chat.userSends({ chatId: 7, text: "now" });
    expect(((await second).body.result as unknown[]).length).toBe(1);
  });

  it("refuses the wrong token, a webhook conflict, unescaped HTML and text over 4096", async () => {
    const wrong = await fetch(`${fake.url}/bot0:nope/getMe`);
    expect(wrong.status).toBe(401);
    fake.setWebhook("https://example.test");
    expect((await call("getUpdates", {})).body.description).toMatch(/use deleteWebhook/);
    const html = await call("sendMessage", { chat_id: 7, text: "a < b", parse_mode: "HTML" });
    expect(html.body.description).toMatch(/^Bad Request: can't parse entities/);
    const long = await call("sendMessage", { chat_id: 7, text: "x".repeat(4097) });
    expect(long.body.description).toBe("Bad Request: message is too long");
    expect(parseTelegramHtml("<b>a &amp; b</b>")).toEqual({ ok: true, text: "a & b" });
  });

  it("answers 429 with parameters.retry_after when told to", async () => {
    fake.failNext("sendMessage", { status: 429, retryAfter: 3 });
    const limited = await call("sendMessage", { chat_id: 7, text: "x" });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error_code: 429, parameters: { retry_after: 3 } });
    expect((await call("sendMessage", { chat_id: 7, text: "x" })).body.ok).toBe(true);
  });
});

describe("telegram fake: what the Bot API documents", () => {
  it("confirms every update below an offset for good: a later getUpdates with a lower offset (or none) never brings one back", async () => {
    const ids = [1, 2, 3].map((i) => fake.chat.userSends({ chatId: 7, text: `m${i}` }));
    await call("getUpdates", { offset: (ids[2] as number) + 1, timeout: 0 });
    expect((await call("getUpdates", { offset: ids[0], timeout: 0 })).body.result).toEqual([]);
    expect((await call("getUpdates", { timeout: 0 })).body.result).toEqual([]);
  });

  it("a negative offset keeps the last -offset updates and forgets the ones before", async () => {
    const ids = [1, 2, 3].map((i) => fake.chat.userSends({ chatId: 7, text: `n${i}` }));
    const last = await call("getUpdates", { offset: -1, timeout: 0 });
    expect((last.body.result as { update_id: number }[]).map((u) => u.update_id)).toEqual([ids[2]]);
    expect(fake.unconfirmed.map((u) => u.update_id)).toEqual([ids[2]]);
  });

  it("refuses in the API's own words when told to, and an edit of a message the user deleted is 'message to edit not found'", async () => {
    fake.failNext("sendMessage", { status: 400, description: "Bad Request: can't parse entities: x" });
    expect((await call("sendMessage", { chat_id: 7, text: "<b>x</b>", parse_mode: "HTML" })).body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: can't parse entities: x",
    });
    const sent = await call("sendMessage", { chat_id: 7, text: "preview" });
    const id = (sent.body.result as { message_id: number }).message_id;
    expect(fake.chat.deleteBotMessage(7, id)).toBe(true);
    const edit = await call("editMessageText", { chat_id: 7, message_id: id, text: "final" });
    expect(edit.body).toMatchObject({
      ok: false,
      error_code: 400,
      description: "Bad Request: message to edit not found",
    });
  });

  it("refuses a callback answer over 200 characters as MESSAGE_TOO_LONG and leaves the query unanswered", async () => {
    const sent = await call("sendMessage", {
      chat_id: 7,
      text: "Allow?",
      reply_markup: { inline_keyboard: [[{ text: "Yes", callback_data: "y" }]] },
    });
    const messageId = (sent.body.result as { message_id: number }).message_id;
    const { callbackQueryId } = fake.chat.press({ chatId: 7, messageId, data: "y", from: { id: 5 } });
    const long = await call("answerCallbackQuery", {
      callback_query_id: callbackQueryId,
      text: "x".repeat(201),
    });
    expect(long.body).toEqual({ ok: false, error_code: 400, description: "Bad Request: MESSAGE_TOO_LONG" });
    expect(fake.chat.callbackAnswers.get(callbackQueryId)).toBeUndefined();
    const fits = await call("answerCallbackQuery", {
      callback_query_id: callbackQueryId,
      text: "x".repeat(200),
    });
    expect(fits.body.ok).toBe(true);
  });
});
