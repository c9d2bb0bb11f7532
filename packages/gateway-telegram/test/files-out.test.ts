// A reply's files through the Telegram fake's Bot API: a photo Telegram shows inline goes with
// sendPhoto, anything else with sendDocument, as multipart/form-data with the bytes and name intact
// (https://core.telegram.org/bots/api#sending-files).
import type { OutboundFile } from "@agentsvc/adapter-kit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;

beforeAll(async () => {
  rig = await startRig();
});

afterAll(() => rig.stop());

const opts = { idempotencyKey: "piece-1", attempt: 1 };

function file(name: string, contentType: string, bytes: Buffer, caption?: string): OutboundFile {
  return {
    blob: "0".repeat(64),
    name,
    contentType,
    size: bytes.length,
    bytes: async () => bytes,
    ...(caption ? { caption } : {}),
  };
}

const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(64, 7)]);

it("sends a PNG as a photo with its caption and a reply to the user's message", async () => {
  const result = await rig.gateway.sendFile("4242", file("chart.png", "image/png", PNG, "The chart"), {
    ...opts,
    meta: { messageId: 17 },
  });
  const sent = rig.fake.files.sent.at(-1);
  expect(sent).toMatchObject({ method: "sendPhoto", chatId: 4242, name: "chart.png", caption: "The chart" });
  expect(sent?.bytes.equals(PNG)).toBe(true);
  expect(result.messageId).toBe(String(sent?.messageId));
  const call = rig.fake.calls.findLast((c) => c.method === "sendPhoto");
  expect(call?.params.reply_parameters).toEqual({ message_id: 17, allow_sending_without_reply: true });
});

it("sends a PDF as a document into the forum topic, bytes and file name intact", async () => {
  const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(300_000, 1)]);
  await rig.gateway.sendFile("-100777:9", file("report 2026.pdf", "application/pdf", pdf), opts);
  const sent = rig.fake.files.sent.at(-1);
  expect(sent).toMatchObject({
    method: "sendDocument",
    chatId: -100777,
    threadId: 9,
    name: "report 2026.pdf",
  });
  expect(sent?.bytes.equals(pdf)).toBe(true);
});

it("sends an image over sendPhoto's 10 MB as a document instead of having it refused", async () => {
  const big = Buffer.concat([Buffer.from("ffd8ffe0", "hex"), Buffer.alloc(10 * 1024 * 1024, 3)]);
  await rig.gateway.sendFile("4242", file("scan.jpg", "image/jpeg", big), opts);
  expect(rig.fake.files.sent.at(-1)).toMatchObject({ method: "sendDocument", name: "scan.jpg" });
});

it("cuts a caption to Telegram's 1024 characters instead of losing the file", async () => {
  await rig.gateway.sendFile("4242", file("a.png", "image/png", PNG, "x".repeat(1500)), opts);
  expect(rig.fake.files.sent.at(-1)?.caption).toHaveLength(1024);
});

it("turns a 429 on the upload into a retry-after failure for the outbox", async () => {
  rig.fake.failNext("sendDocument", { status: 429, retryAfter: 3 });
  await expect(
    rig.gateway.sendFile("4242", file("a.txt", "text/plain", Buffer.from("hello")), opts),
  ).rejects.toMatchObject({ retryAfterMs: 3000 });
});
