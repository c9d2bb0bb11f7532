// The typing action while a turn runs (https://core.telegram.org/bots/api#sendchataction: "The status
// is set for 5 seconds or less"), so it is sent again every typingIntervalMs (default 4 s) until the
// reply goes out. Driven round by round on testkit's ManualScheduler (its clock is the sum of the
// delays the beats asked for), so nothing here waits on real time.
import type { OutboundFile } from "@agentsvc/adapter-kit";
import { ManualScheduler, TelegramFake } from "@agentsvc/testkit";
import { afterEach, expect, it } from "vitest";
import { createGateway, type TelegramGateway, type TelegramGatewayOptions } from "../src/index.js";
import { type RecordingContext, recordingContext } from "./recording-context.js";

let fake: TelegramFake | undefined;
let gateway: TelegramGateway | undefined;
let rec: RecordingContext | undefined;
let scheduler: ManualScheduler;

afterEach(async () => {
  await gateway?.stop();
  scheduler?.stop();
  rec?.stop();
  await fake?.close();
  gateway = undefined;
});

async function started(options: Partial<TelegramGatewayOptions> = {}): Promise<TelegramGateway> {
  fake = await TelegramFake.start();
  rec = recordingContext({ TELEGRAM_BOT_TOKEN: fake.token });
  scheduler = new ManualScheduler();
  gateway = createGateway({
    name: "telegram",
    botTokenEnvVar: "TELEGRAM_BOT_TOKEN",
    apiBaseUrl: fake.url,
    ...options,
  }) as TelegramGateway;
  // The poll is registered with the manual scheduler and never run: only typing goes out.
  await gateway.start({ ...rec.context, scheduler });
  return gateway;
}

const actions = () => (fake as TelegramFake).calls.filter((c) => c.method === "sendChatAction");
const opts = { idempotencyKey: "k", attempt: 1 };

it("repeats typing every 4 s by default, and every typingIntervalMs when set", async () => {
  const byDefault = await started();
  await byDefault.startTyping("101");
  expect(await scheduler.runFor("typing:101", 20_000, 0)).toBe(5);
  expect(actions()).toHaveLength(6);
  await byDefault.stop();
  await fake?.close();

  const set = await started({ typingIntervalMs: 1_000 });
  await set.startTyping("101");
  expect(await scheduler.runFor("typing:101", 10_000, 0)).toBe(10);
  expect(actions()).toHaveLength(11);
});

it("sends the typing action to a forum topic with its message_thread_id, and to a chat without one", async () => {
  const gw = await started();
  await gw.startTyping("-1001234567890:7");
  await gw.startTyping("101");
  expect(actions().map((c) => c.params)).toEqual([
    { chat_id: "-1001234567890", action: "typing", message_thread_id: 7 },
    { chat_id: "101", action: "typing" },
  ]);
});

it("stops repeating typing once a reply, a file or an approval card goes out", async () => {
  const gw = await started();
  const file: OutboundFile = {
    blob: "0".repeat(64),
    name: "notes.txt",
    contentType: "text/plain",
    size: 2,
    bytes: async () => Buffer.from("hi"),
  };
  await gw.startTyping("101");
  await gw.startTyping("102");
  await gw.startTyping("103");
  await gw.send("101", "done", opts);
  await gw.sendFile("102", file, opts);
  await gw.requestDecision(
    {
      requestId: "req_1",
      threadId: "t",
      gateway: "telegram",
      thread: "103",
      allowedDecisions: ["approve", "reject"],
      toolName: "delete_file",
      arguments: {},
      prompt: "Allow delete_file?",
      createdAt: 0,
      expiresAt: 1,
    },
    opts,
  );
  for (const thread of ["101", "102", "103"])
    expect(await scheduler.runFor(`typing:${thread}`, 10_000, 0)).toBe(0);
  expect(gw.typingThreadCount).toBe(0);
});

it("stops typing when a group's streamed preview is edited to the final reply", async () => {
  const gw = await started();
  const preview = await gw.send("-1001234567890", "Work", opts);
  await gw.startTyping("-1001234567890");
  await gw.finishDraft("-1001234567890", { messageId: preview.messageId as string }, "Work done", opts);
  expect(await scheduler.runFor("typing:-1001234567890", 10_000, 0)).toBe(0);
  expect(gw.typingThreadCount).toBe(0);
});

it("stops every chat's typing when the gateway stops, and starts none after", async () => {
  const gw = await started();
  await gw.startTyping("101");
  await gw.startTyping("102");
  await gw.stop();
  expect(gw.typingThreadCount).toBe(0);
  expect(await scheduler.runFor("typing:101", 10_000, 0)).toBe(0);
  expect(await scheduler.runFor("typing:102", 10_000, 0)).toBe(0);
  await gw.startTyping("103");
  expect(actions()).toHaveLength(2);
});
