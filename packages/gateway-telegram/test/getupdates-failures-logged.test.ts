// What the operator reads when getUpdates fails (https://core.telegram.org/bots/api#getupdates): a 409
// Conflict means another poller or a webhook takes the updates; the first of a streak is an error a
// person must act on, the rest of the same streak warnings (not an error every backoff step). Any other
// failure is a plain retry, never explained as a conflict.
import { eventually } from "@agentsvc/testkit";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;

beforeEach(async () => {
  rig = await createRig({ backoff: { baseMs: 20, maxMs: 100 } });
});

afterEach(() => rig.stop());

const conflicts = () => rig.rec.logs().filter((l) => /getUpdates conflict \(409\)/.test(l.msg));

it("a 409 streak logs its first conflict as an error and the ones after it as warnings", async () => {
  for (let i = 0; i < 3; i++) rig.fake.failNext("getUpdates", { status: 409, reason: "poller" });
  await rig.start();
  await eventually(() => conflicts().length === 3, "three conflicts logged");
  expect(conflicts().map((l) => ({ level: l.level, failures: l.failures }))).toEqual([
    { level: 50, failures: 1 },
    { level: 40, failures: 2 },
    { level: 40, failures: 3 },
  ]);
});

it("a 500 on getUpdates is a failed poll retried, not explained as a conflict", async () => {
  rig.fake.failNext("getUpdates", { status: 500 });
  await rig.start();
  await eventually(() => rig.calls("getUpdates").length >= 2, "the retry");
  const failed = rig.rec.logs().filter((l) => /getUpdates failed; retrying/.test(l.msg));
  expect(failed).toHaveLength(1);
  expect(failed[0]).toMatchObject({ level: 40, status: 500 });
  expect(conflicts()).toEqual([]);
});
