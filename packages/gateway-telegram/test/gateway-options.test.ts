// The gateway's own defaults and bounds against the Telegram fake: getUpdates long-polls 25 s unless
// told otherwise (https://core.telegram.org/bots/api#getupdates: `timeout` 0 is short polling, "should
// be used for testing purposes only"), a failed poll waits its backoff, an update that keeps failing
// is skipped after its bound, a Bot API call never answered fails at requestTimeoutMs as a retry, an
// unset token stops the start saying what it is, and a gateway not started refuses to send and stops
// without fuss.
import { type GatewayContext, GatewaySendError } from "@agentsvc/adapter-kit";
import { eventually, ManualScheduler, TelegramFake, within } from "@agentsvc/testkit";
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

/** Starts the gateway on a ManualScheduler: the poll runs round by round, each round's delay on its clock. */
async function startManual(
  options: Partial<TelegramGatewayOptions> = {},
  context: Partial<GatewayContext> = {},
): Promise<ManualScheduler> {
  await setUp(options);
  scheduler = new ManualScheduler();
  await gateway.start({ ...rec.context, scheduler, ...context });
  return scheduler;
}

it("waits 1 s (plus up to 20% jitter) after a failed getUpdates by default, and backoff.baseMs when set", async () => {
  let manual = await startManual();
  fake.failNext("getUpdates", { status: 500 });
  await manual.runFor("poll", 1, 1);
  expect(manual.clock).toBeGreaterThanOrEqual(1_000);
  expect(manual.clock).toBeLessThanOrEqual(1_200);
  await gateway.stop();
  await fake.close();

  manual = await startManual({ backoff: { baseMs: 50, jitter: 0 } });
  fake.failNext("getUpdates", { status: 500 });
  await manual.runFor("poll", 1, 1);
  expect(manual.clock).toBe(50);
});

it("skips an update that fails every time after maxUpdateAttempts tries and skipUpdateAfterMs, when set", async () => {
  const tried: string[] = [];
  const manual = await startManual(
    { maxUpdateAttempts: 2, skipUpdateAfterMs: 1, pollTimeoutSeconds: 1 },
    {
      deliver: async (inbound) => {
        tried.push(inbound.text);
        if (inbound.text === "poisoned") throw new Error("the inbox refused it");
        return rec.context.deliver(inbound);
      },
    },
  );
  fake.chat.userSends({ chatId: 101, text: "poisoned" });
  fake.chat.userSends({ chatId: 101, text: "after it" });
  // A round that fails asks for a backoff delay, so each runFor is one round: the first fails, the
  // second skips the update (its second try, 1 ms after the first) and delivers the next.
  await manual.runFor("poll", 1, 1);
  // skipUpdateAfterMs (1 ms) has passed once the clock moved on from the first failure.
  const failedAt = Date.now();
  await eventually(() => Date.now() > failedAt, "the clock past the first failure");
  await manual.runFor("poll", 1, 1);
  expect(rec.delivered.map((m) => m.text)).toEqual(["after it"]);
  expect(tried).toEqual(["poisoned", "poisoned", "after it"]);
});

it("an unset token fails the start naming the variable and what to set it to", async () => {
  await setUp();
  await expect(gateway.start({ ...rec.context, env: {} })).rejects.toThrow(
    /^telegram: TELEGRAM_BOT_TOKEN is not set: set it to the bot token from @BotFather /,
  );
});
