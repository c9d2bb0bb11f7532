// A reply's files through the Discord fake's REST API: one message per file, the bytes in
// `files[0]` and the name in `payload_json.attachments`
// (https://discord.com/developers/docs/reference#uploading-files).
import { GatewaySendError, type OutboundFile } from "@agentsvc/adapter-kit";
import { DISCORD_UPLOAD_LIMIT } from "@agentsvc/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DiscordGateway } from "../src/index.js";
import { CHANNELS } from "./harness.js";
import { type Rigged, startRig, stopRig } from "./rig.js";

let r: Rigged;
let gateway: DiscordGateway;

beforeAll(async () => {
  r = await startRig();
  gateway = r.rig.gateway as DiscordGateway;
});

afterAll(() => stopRig(r));

let pieces = 0;
/** Each call is its own outbox piece (its own key: Discord returns the first message for a repeated nonce). */
const opts = () => ({ idempotencyKey: `piece-${++pieces}`, attempt: 1 });

function file(
  name: string,
  contentType: string,
  bytes: Buffer,
  extra: Partial<OutboundFile> = {},
): OutboundFile {
  return { blob: "0".repeat(64), name, contentType, size: bytes.length, bytes: async () => bytes, ...extra };
}

const channel = CHANNELS[0] as string;

it("posts a file as an attachment with its caption as the content, replying to the user's message", async () => {
  const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(5000, 2)]);
  const result = await gateway.sendFile(
    channel,
    file("chart.png", "image/png", png, { caption: "Your chart" }),
    {
      ...opts(),
      meta: { messageId: "123456789012345678" },
    },
  );
  const msg = r.h.fake.rest.botMessages.at(-1);
  expect(msg).toMatchObject({ id: result.messageId, channelId: channel, content: "Your chart" });
  expect(msg?.replyTo).toBe("123456789012345678");
  expect(msg?.attachments).toHaveLength(1);
  expect(msg?.attachments?.[0]).toMatchObject({ filename: "chart.png", contentType: "image/png" });
  expect(msg?.attachments?.[0]?.bytes.equals(png)).toBe(true);
});

it("posts a file without a caption (a message with only an attachment)", async () => {
  const pdf = Buffer.from("%PDF-1.7\nhello");
  await gateway.sendFile(channel, file("notes.pdf", "application/pdf", pdf), opts());
  const msg = r.h.fake.rest.botMessages.at(-1);
  expect(msg?.content).toBe("");
  expect(msg?.attachments?.[0]?.filename).toBe("notes.pdf");
});

it("sends a note with the service's link for a file over Discord's upload limit, instead of a dead piece", async () => {
  const big = Buffer.alloc(DISCORD_UPLOAD_LIMIT + 1, 1);
  const url = "https://agent.example/files/abc?sig=x";
  await gateway.sendFile(channel, file("video.mp4", "video/mp4", big, { url }), opts());
  const msg = r.h.fake.rest.botMessages.at(-1);
  expect(msg?.attachments).toBeUndefined();
  expect(msg?.content).toContain("video.mp4");
  expect(msg?.content).toContain(url);
  expect(r.h.logs.find((l) => l.msg === "file over Discord's upload limit; sent as a note")).toMatchObject({
    level: 40,
    file: "video.mp4",
    size: big.length,
  });
});

it("a file refused for another reason (403 Missing Permissions) fails its send as answered, without a note", async () => {
  // https://discord.com/developers/docs/topics/opcodes-and-status-codes#json: 50013 Missing Permissions.
  r.h.fake.failNext("^POST /channels/\\d+/messages$", {
    status: 403,
    headers: {},
    body: { message: "Missing Permissions", code: 50013 },
  });
  const before = r.h.fake.rest.botMessages.length;
  const err = await gateway
    .sendFile(channel, file("notes.pdf", "application/pdf", Buffer.from("%PDF-1.7\n")), opts())
    .catch((caught: unknown) => caught);
  expect(err).toBeInstanceOf(GatewaySendError);
  expect((err as GatewaySendError).status).toBe(403);
  expect(r.h.fake.rest.botMessages).toHaveLength(before);
});
