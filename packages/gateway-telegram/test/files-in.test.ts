// A user's files through the Telegram fake's getUpdates, in the Bot API's documented shapes
// (https://core.telegram.org/bots/api#message: photo as PhotoSize[], document, voice, audio,
// video_note), fetched with getFile and the file URL (https://core.telegram.org/bots/api#getfile),
// stored before deliver and handed over as refs.
import { eventually } from "@agentsvc/testkit";
import { type MemoryBlobs, memoryBlobs } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import type { TelegramGatewayOptions } from "../src/index.js";
import { createRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig | undefined;
let blobs: MemoryBlobs;

afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

const allKinds = { types: ["image", "audio", "video", "document"] as const, maxBytes: 5_000_000 };

async function boot(media?: TelegramGatewayOptions["media"]): Promise<TelegramRig> {
  rig = await createRig(media ? { media } : {});
  blobs = memoryBlobs();
  await rig.start({ ...rig.rec.context, blobs });
  return rig;
}

let nextMessage = 1;
function send(fields: Record<string, unknown>): number {
  if (!rig) throw new Error("boot the gateway first");
  return rig.fake.pushUpdate({
    message: {
      message_id: nextMessage++,
      from: { id: 42, is_bot: false, first_name: "Ada" },
      chat: { id: 42, type: "private" },
      date: Math.floor(Date.now() / 1000),
      ...fields,
    },
  });
}

const JPEG = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(4000, 9)]);
const THUMB = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(90, 1)]);
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(3000, 4)]);

it("takes an uncaptioned photo in at its largest size, stored and typed by content", async () => {
  const { fake, rec } = await boot({ ...allKinds, types: [...allKinds.types] });
  const small = fake.files.host(THUMB, "jpg");
  const large = fake.files.host(JPEG, "jpg");
  send({
    photo: [
      { ...small, width: 90, height: 90 },
      { ...large, width: 1280, height: 960 },
    ],
  });
  await eventually(() => rec.delivered.length === 1, "the photo message");
  const [ref] = rec.delivered[0]?.attachments ?? [];
  expect(ref).toMatchObject({ kind: "image", contentType: "image/jpeg", size: JPEG.length });
  expect(ref && "blob" in ref && blobs.stored.get(ref.blob)?.bytes.equals(JPEG)).toBe(true);
  expect(rec.delivered[0]?.text).toBe("");
  expect(fake.calls.filter((c) => c.method === "getFile").map((c) => c.params.file_id)).toEqual([
    large.file_id,
  ]);
});

it("takes a voice note in as audio, and the same file in a later message is not downloaded again", async () => {
  const { fake, rec } = await boot({ ...allKinds, types: [...allKinds.types] });
  const voice = { ...fake.files.host(OGG, "oga"), duration: 3, mime_type: "audio/ogg" };
  send({ voice });
  send({ voice, caption: "again" });
  await eventually(() => rec.delivered.length === 2, "both voice messages");
  expect(rec.delivered[0]?.attachments?.[0]).toMatchObject({ kind: "audio", contentType: "audio/ogg" });
  expect(rec.delivered[1]?.attachments?.[0]).toEqual(rec.delivered[0]?.attachments?.[0]);
  expect([...fake.files.downloads.values()]).toEqual([1]);
});

it("keeps a document's file name, its caption as the text", async () => {
  const { fake, rec } = await boot({ ...allKinds, types: [...allKinds.types] });
  const pdf = Buffer.from("%PDF-1.7\nminutes");
  const document = { ...fake.files.host(pdf, "pdf"), file_name: "minutes.pdf", mime_type: "application/pdf" };
  send({ document, caption: "Summarise please" });
  await eventually(() => rec.delivered.length === 1, "the document message");
  expect(rec.delivered[0]?.text).toBe("Summarise please");
  expect(rec.delivered[0]?.attachments?.[0]).toMatchObject({
    kind: "document",
    name: "minutes.pdf",
    contentType: "application/pdf",
  });
});

it("takes a round video note in as video", async () => {
  const { fake, rec } = await boot({ ...allKinds, types: [...allKinds.types] });
  const mp4 = Buffer.concat([Buffer.from("000000186674797069736", "hex"), Buffer.alloc(500, 0)]);
  send({ video_note: { ...fake.files.host(mp4, "mp4"), length: 240, duration: 2 } });
  await eventually(() => rec.delivered.length === 1, "the video note");
  expect(rec.delivered[0]?.attachments?.[0]).toMatchObject({ kind: "video" });
});

it("without a media block refuses the file (disabled) without asking Telegram for it", async () => {
  const { fake, rec } = await boot();
  send({ photo: [{ ...fake.files.host(JPEG, "jpg"), width: 1, height: 1 }] });
  await eventually(() => rec.delivered.length === 1, "the photo message");
  expect(rec.delivered[0]?.attachments).toEqual([{ refused: "disabled", kind: "image" }]);
  expect(fake.calls.some((c) => c.method === "getFile")).toBe(false);
});

it("refuses a file over maxBytes by its declared size, without a getFile or a download", async () => {
  const { fake, rec } = await boot({ types: ["document"], maxBytes: 100 });
  const big = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(1000, 1)]);
  send({ document: { ...fake.files.host(big, "pdf"), file_name: "big.pdf" } });
  await eventually(() => rec.delivered.length === 1, "the document message");
  expect(rec.delivered[0]?.attachments).toEqual([
    { refused: "size", kind: "document", name: "big.pdf", size: big.length },
  ]);
  expect(fake.calls.some((c) => c.method === "getFile")).toBe(false);
});

it("asks getFile again for a link that expired", async () => {
  const { fake, rec } = await boot({ ...allKinds, types: [...allKinds.types] });
  const photo = fake.files.host(JPEG, "jpg");
  fake.files.expireLinks();
  send({ photo: [{ ...photo, width: 1, height: 1 }] });
  await eventually(() => rec.delivered.length === 1, "the photo message");
  expect(rec.delivered[0]?.attachments?.[0]).toMatchObject({ kind: "image" });
});
