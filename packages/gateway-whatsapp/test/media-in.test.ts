// Media messages through the real webhook route, signed as Meta signs them: with a `media` block the
// file is fetched as the Cloud API documents it (media id -> URL with the token -> bytes,
// https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#download-media), stored
// before deliver and handed over as a ref; without one the spec's caption-only row stands.
import { eventually, type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import type { WhatsappGatewayOptions } from "../src/index.js";
import { type WhatsappWorld, whatsappWorld } from "./harness.js";

const user = "15550001234";
let world: WhatsappWorld;
let started: StartedGateway | undefined;

afterEach(async () => {
  await started?.stop();
  await world?.close();
});

async function boot(extra: Partial<WhatsappGatewayOptions>): Promise<StartedGateway> {
  world = await whatsappWorld();
  started = await startGatewayAlone(world.build(extra));
  return started;
}

const media = { types: ["image", "audio", "video", "document"] as const, maxBytes: 1_000_000 };
const JPEG = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(2000, 9)]);
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(3000, 4)]);

it("takes an uncaptioned photo in with its bytes stored, typed by content, before deliver", async () => {
  const { delivered, blobs } = await boot({ media: { ...media, types: [...media.types] } });
  const id = world.fake.hostMedia(JPEG, "image/jpeg");
  const answer = await world.fake.deliverMedia({ from: user, type: "image", mediaId: id, id: "wamid.photo" });
  expect(answer.status).toBe(200);
  expect(delivered).toHaveLength(1);
  const [ref] = delivered[0]?.attachments ?? [];
  expect(ref).toMatchObject({ kind: "image", contentType: "image/jpeg", size: JPEG.length });
  expect(ref && "blob" in ref && blobs.stored.get(ref.blob)?.bytes.equals(JPEG)).toBe(true);
  expect(delivered[0]?.text).toBe("");
});

it("takes a voice note in as audio with its caption-less text, and a redelivery downloads nothing again", async () => {
  const { delivered } = await boot({ media: { ...media, types: [...media.types] } });
  const id = world.fake.hostMedia(OGG, "audio/ogg; codecs=opus");
  const note = { from: user, type: "audio" as const, mediaId: id, voice: true, id: "wamid.voice" };
  await world.fake.deliverMedia(note);
  await world.fake.deliverMedia(note);
  expect(delivered).toHaveLength(1);
  expect(delivered[0]?.attachments?.[0]).toMatchObject({ kind: "audio", contentType: "audio/ogg" });
  expect(world.fake.mediaDownloads.get(id)).toBe(1);
});

it("keeps a document's file name and its caption as the text", async () => {
  const { delivered } = await boot({ media: { ...media, types: [...media.types] } });
  const pdf = Buffer.from("%PDF-1.7\nquarterly numbers");
  const id = world.fake.hostMedia(pdf, "application/pdf");
  await world.fake.deliverMedia({
    from: user,
    type: "document",
    mediaId: id,
    filename: "q3.pdf",
    caption: "Summarise this",
  });
  await eventually(() => delivered.length === 1, "the document message");
  expect(delivered[0]?.text).toBe("Summarise this");
  expect(delivered[0]?.attachments?.[0]).toMatchObject({ kind: "document", name: "q3.pdf" });
});

it("refuses a file over the entry's maxBytes without downloading it", async () => {
  const { delivered } = await boot({ media: { types: ["image"], maxBytes: 1000 } });
  const id = world.fake.hostMedia(JPEG, "image/jpeg");
  await world.fake.deliverMedia({ from: user, type: "image", mediaId: id });
  expect(delivered[0]?.attachments?.[0]).toMatchObject({ refused: "size", kind: "image" });
  expect(world.fake.mediaDownloads.get(id)).toBeUndefined();
});

it("without a media block keeps the caption-only row: an uncaptioned photo is ignored, nothing fetched", async () => {
  const { delivered } = await boot({});
  const id = world.fake.hostMedia(JPEG, "image/jpeg");
  const answer = await world.fake.deliverMedia({ from: user, type: "image", mediaId: id });
  expect(answer.status).toBe(200);
  await world.fake.deliverMedia({ from: user, type: "image", mediaId: id, caption: "look" });
  expect(delivered.map((d) => d.text)).toEqual(["look"]);
  expect(delivered[0]?.attachments).toBeUndefined();
  expect(world.fake.mediaDownloads.size).toBe(0);
});

it("asks Graph for a fresh URL each time, so an expired one is never used", async () => {
  const { delivered } = await boot({ media: { ...media, types: [...media.types] } });
  const id = world.fake.hostMedia(JPEG, "image/jpeg");
  world.fake.expireMediaUrls();
  await world.fake.deliverMedia({ from: user, type: "image", mediaId: id });
  expect(delivered[0]?.attachments?.[0]).toMatchObject({ kind: "image", contentType: "image/jpeg" });
});
