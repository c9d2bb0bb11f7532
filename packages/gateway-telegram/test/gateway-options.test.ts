// The gateway's own defaults and bounds against the Telegram fake: getUpdates long-polls 25 s unless
// told otherwise (https://core.telegram.org/bots/api#getupdates: `timeout` 0 is short polling, "should
// be used for testing purposes only"), a Bot API call never answered fails at requestTimeoutMs as a
// retry, and a gateway not started refuses to send and stops without fuss.
import { GatewaySendError } from "@agentsvc/adapter-kit";
import { ManualScheduler, TelegramFake, within } from "@agentsvc/testkit";
import { afterEach, expect, it } from "vitest";
import { createGateway, type TelegramGateway, type TelegramGatewayOptions } from "../src/index.js";
import { type RecordingContext, recordingContext } from "./recording-context.js";

let fake: TelegramFake;
let gateway: TelegramGateway;
let rec: RecordingContext;
let scheduler: ManualScheduler | undefined;

afterEach(async () => {
  await gateway.stop();
  scheduler?.stop();
  scheduler = undefined;
  rec?.stop();
  await fake.close();
});

async function setUp(options: Partial<TelegramGatewayOptions> = {}): Promise<void> {
  fake = await TelegramFake.start();
  rec = recordingContext({ TELEGRAM_BOT_TOKEN: fake.token });
  gateway = createGateway({
    name: "telegram",
    botTokenEnvVar: "TELEGRAM_BOT_TOKEN",
    apiBaseUrl: fake.url,
    ...options,
  }) as TelegramGateway;
}

const getUpdates = () => fake.calls.filter((c) => c.method === "getUpdates");

it("long-polls getUpdates for 25 s by default, and for pollTimeoutSeconds when set", async () => {
  await setUp();
  scheduler = new ManualScheduler();
  await gateway.start({ ...rec.context, scheduler });
  // An update waiting makes the long-poll answer at once.
  fake.chat.userSends({ chatId: 101, text: "hello" });
  expect(await scheduler.runFor("poll", 1, 1)).toBe(1);
  expect(getUpdates().map((c) => c.params.timeout)).toEqual([25]);
  await gateway.stop();
  await fake.close();

  await setUp({ pollTimeoutSeconds: 3 });
  scheduler = new ManualScheduler();
  await gateway.start({ ...rec.context, scheduler });
  fake.chat.userSends({ chatId: 101, text: "hello" });
  await scheduler.runFor("poll", 1, 1);
  expect(getUpdates().map((c) => c.params.timeout)).toEqual([3]);
});

it("a sendMessage Telegram never answers fails at requestTimeoutMs as a retry, not a dead letter", async () => {
  await setUp({ requestTimeoutMs: 300 });
  await gateway.start(rec.context);
  fake.failNext("sendMessage", { hang: true });
  const failed = await within(
    gateway.send("101", "hello", { idempotencyKey: "k", attempt: 1 }).catch((e: unknown) => e),
    5_000,
    "the send given up",
  );
  expect(failed).toBeInstanceOf(GatewaySendError);
  expect(failed).toMatchObject({ permanent: false });
});

it("before start, a send is refused as not started and stop() resolves", async () => {
  await setUp();
  await expect(gateway.send("101", "hello", { idempotencyKey: "k", attempt: 1 })).rejects.toThrow(
    /telegram gateway not started/,
  );
  await expect(gateway.stop()).resolves.toBeUndefined();
  await gateway.startTyping("101");
  expect(fake.calls).toEqual([]);
});

it("stops polling when stopped", async () => {
  await setUp({ pollTimeoutSeconds: 1 });
  scheduler = new ManualScheduler();
  await gateway.start({ ...rec.context, scheduler });
  await gateway.stop();
  expect(await scheduler.runFor("poll", 10_000, 1_000)).toBe(0);
  expect(getUpdates()).toEqual([]);
});
