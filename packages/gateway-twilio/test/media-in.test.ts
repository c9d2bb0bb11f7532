// MMS files through the real webhook route, signed as Twilio signs it: `NumMedia`, `MediaUrlN`,
// `MediaContentTypeN` (https://www.twilio.com/docs/messaging/guides/webhook-request); each URL
// fetched with the account's Basic credentials and its redirect to the short-lived URL followed
// (https://www.twilio.com/docs/messaging/api/media-resource), stored before deliver.
import { type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import type { TwilioGatewayOptions } from "../src/index.js";
import { type TwilioWorld, twilioWorld } from "./harness.js";

const user = "+15550001234";
let world: TwilioWorld;
let started: StartedGateway | undefined;

afterEach(async () => {
  await started?.stop();
  await world?.close();
});

async function boot(extra: Partial<TwilioGatewayOptions>): Promise<StartedGateway> {
  world = await twilioWorld();
  started = await startGatewayAlone(world.build(extra));
  return started;
}

const everything = {
  types: ["image", "audio", "video", "document"] as ("image" | "audio" | "video" | "document")[],
  maxBytes: 1_000_000,
};
// A PNG signature and its IHDR chunk head: the bytes are typed by webhook-kit's sniff (file-type).
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(1500, 3)]);
const JPEG = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(800, 9)]);

it("takes an MMS's two pictures in, fetched with Basic auth through Twilio's redirect, stored before deliver", async () => {
  const { delivered, blobs } = await boot({ media: everything });
  const a = world.fake.hostMedia(PNG, "image/png");
  const b = world.fake.hostMedia(JPEG, "image/jpeg");
  const answer = await world.fake.deliverMms({ from: user, body: "", media: [a, b] });
  expect(answer.status).toBe(200);
  expect(delivered).toHaveLength(1);
  const refs = delivered[0]?.attachments ?? [];
  expect(refs.map((r) => ("contentType" in r ? r.contentType : r))).toEqual(["image/png", "image/jpeg"]);
  const first = refs[0];
  expect(first && "blob" in first && blobs.stored.get(first.blob)?.bytes.equals(PNG)).toBe(true);
  expect(delivered[0]?.text).toBe("");
});

it("a redelivered MMS (same MessageSid) downloads nothing again", async () => {
  const { delivered } = await boot({ media: everything });
  const a = world.fake.hostMedia(PNG, "image/png");
  await world.fake.deliverMms({
    from: user,
    body: "look",
    media: [a],
    sid: "MM0123456789abcdef0123456789abcdef",
  });
  await world.fake.deliverMms({
    from: user,
    body: "look",
    media: [a],
    sid: "MM0123456789abcdef0123456789abcdef",
  });
  expect(delivered).toHaveLength(1);
  expect([...world.fake.mediaDownloads.values()]).toEqual([1]);
});

it("without a media block refuses the files without a download, and the message still reaches the session", async () => {
  const { delivered } = await boot({});
  const a = world.fake.hostMedia(PNG, "image/png");
  await world.fake.deliverMms({ from: user, body: "", media: [a] });
  expect(delivered[0]?.attachments).toEqual([{ refused: "disabled", kind: "image" }]);
  expect(world.fake.mediaDownloads.size).toBe(0);
});
