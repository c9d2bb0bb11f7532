// A getUpdates answer over the transport's bound (HttpAnswerTooLargeError; 32 MiB by default, lowered
// here through the gateway's maxAnswerBytes so the fake's answers pass it with a few KiB). Retried as
// it was, the same updates came back over the bound each time and nothing was delivered again. Now the
// next ask is for half as many (getUpdates' `limit`, https://core.telegram.org/bots/api#getupdates),
// back to 100 after an answer that fit, and one update alone over the bound is skipped naming its id.
import { eventually } from "@agentsvc/testkit";
import { afterEach, expect, it } from "vitest";
import { createRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;
afterEach(() => rig.stop());

const texts = () => rig.rec.delivered.map((m) => m.text);
const limits = () => rig.calls("getUpdates").map((c) => c.params.limit ?? 100);

it("asks for half as many updates while the answer is over the bound, delivers all of them in order, and goes back to 100", async () => {
  rig = await createRig({ maxAnswerBytes: 16 * 1024, backoff: { baseMs: 20, maxMs: 200 } });
  // 40 messages of 1,500 characters: about 70 KiB as one answer, 7 of them fit in 16 KiB.
  const sent = Array.from({ length: 40 }, (_, i) => `${i} ${"x".repeat(1_500)}`);
  for (const text of sent) rig.fake.chat.userSends({ chatId: 101, text, from: { id: 7 } });
  await rig.start();
  await eventually(() => texts().length === 40, "all 40 messages delivered");
  expect(texts()).toEqual(sent);
  // The first answer: 100 (all 40), 50, 25, 13 over the bound, 7 fit; then back to 100.
  expect(limits().slice(0, 6)).toEqual([100, 50, 25, 13, 7, 100]);
  const halved = rig.rec.logs().filter((l) => /getUpdates answer is over 16384 bytes/.test(l.msg));
  expect(halved[0]).toMatchObject({ level: 40, limit: 50, maxBytes: 16_384 });
});

it("skips an update that alone is over the bound with an error naming its update_id, and delivers the ones after it", async () => {
  rig = await createRig({ maxAnswerBytes: 4 * 1024, backoff: { baseMs: 20, maxMs: 200 } });
  const big = rig.fake.chat.userSends({ chatId: 101, text: "y".repeat(8_000), from: { id: 7 } });
  rig.fake.chat.userSends({ chatId: 101, text: "after it", from: { id: 7 } });
  rig.fake.chat.userSends({ chatId: 101, text: "and this", from: { id: 7 } });
  await rig.start();
  await eventually(() => texts().length === 2, "the two updates after the big one delivered");
  expect(texts()).toEqual(["after it", "and this"]);
  const skipped = rig.rec.logs().filter((l) => l.level === 50 && /alone is over/.test(l.msg));
  expect(skipped).toMatchObject([{ update: big, maxBytes: 4_096 }]);
  // Its offset was stored (and so confirmed to Telegram by the next getUpdates).
  await rig.fake.confirmed(big);
  expect(limits()).toContain(1);
});

it("skips an update over the bound by its whole update_id (past 9), not by its first digit", async () => {
  rig = await createRig({ maxAnswerBytes: 4 * 1024, backoff: { baseMs: 20, maxMs: 200 } });
  for (let i = 1; i <= 10; i++) rig.fake.chat.userSends({ chatId: 101, text: `small ${i}`, from: { id: 7 } });
  await rig.start();
  await eventually(() => texts().length === 10, "the ten small updates delivered");
  const big = rig.fake.chat.userSends({ chatId: 101, text: "y".repeat(8_000), from: { id: 7 } });
  rig.fake.chat.userSends({ chatId: 101, text: "after it", from: { id: 7 } });
  expect(big).toBeGreaterThan(9);
  await eventually(() => texts().length === 11, "the update after the big one delivered");
  expect(texts().at(-1)).toBe("after it");
  await rig.fake.confirmed(big);
});

it("asks for 100 updates again after a failure that is not the bound's (a 502 is backed off, not halved)", async () => {
  rig = await createRig({ maxAnswerBytes: 16 * 1024, backoff: { baseMs: 20, maxMs: 200 } });
  rig.fake.failNext("getUpdates", { status: 502 });
  rig.fake.chat.userSends({ chatId: 101, text: "hello", from: { id: 7 } });
  await rig.start();
  await eventually(() => texts().length === 1, "the message delivered after the 502");
  expect(limits().slice(0, 2)).toEqual([100, 100]);
});
