// A reply's files through the fake's Graph routes: uploaded to /<phone number id>/media, then sent
// as an image, audio, video or document message naming the media id
// (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#upload-media).
import type { OutboundFile } from "@agentsvc/adapter-kit";
import { type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import type { WhatsappGateway } from "../src/index.js";
import { type WhatsappWorld, whatsappWorld } from "./harness.js";

const user = "15550001234";
const opts = { idempotencyKey: "piece-1", attempt: 1 };
let world: WhatsappWorld;
let gateway: WhatsappGateway;
let started: StartedGateway | undefined;

afterEach(async () => {
  await started?.stop();
  await world?.close();
});

async function boot(): Promise<void> {
  world = await whatsappWorld();
  gateway = world.build();
  started = await startGatewayAlone(gateway);
}

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

it("uploads a PNG and sends it as an image message with its caption", async () => {
  await boot();
  const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(500, 1)]);
  await gateway.sendFile(user, file("chart.png", "image/png", png, "Your chart"), opts);
  const sent = world.fake.sent.at(-1);
  expect(sent).toMatchObject({ to: user, type: "image", text: "Your chart" });
  expect(world.fake.uploads.get(sent?.media?.id ?? "")?.bytes.equals(png)).toBe(true);
});

it("sends a PDF as a document that keeps its file name", async () => {
  await boot();
  const pdf = Buffer.from("%PDF-1.7\nreport");
  await gateway.sendFile(user, file("report.pdf", "application/pdf", pdf), opts);
  const sent = world.fake.sent.at(-1);
  expect(sent).toMatchObject({ type: "document", media: { filename: "report.pdf" } });
  expect(world.fake.uploads.get(sent?.media?.id ?? "")?.name).toBe("report.pdf");
});

it("sends captioned audio as a document, since an audio message takes no caption", async () => {
  await boot();
  const mp3 = Buffer.concat([Buffer.from("ID3"), Buffer.alloc(300, 0)]);
  await gateway.sendFile(user, file("note.mp3", "audio/mpeg", mp3, "Listen"), opts);
  expect(world.fake.sent.at(-1)).toMatchObject({ type: "document", text: "Listen" });
  await gateway.sendFile(user, file("note.mp3", "audio/mpeg", mp3), opts);
  expect(world.fake.sent.at(-1)).toMatchObject({ type: "audio", text: "" });
});
