// A user's attachments through the Discord fake's gateway connection, in the documented shapes
// (MESSAGE_CREATE https://discord.com/developers/docs/events/gateway-events#message-create, attachment
// objects https://discord.com/developers/docs/resources/message#attachment-object), fetched from
// their signed, expiring CDN URLs (https://discord.com/developers/docs/reference#signed-attachment-cdn-urls)
// and stored before the message is handed over.
import { DiscordFake, eventually } from "@agentsvc/testkit";
import { type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import { DEFAULT_WATCHDOG_MS } from "../src/gateway.js";
import { createGateway, type DiscordGatewayOptions } from "../src/index.js";
import { DISCORD_HEARTBEAT_INTERVAL_MS, SCALE } from "./harness.js";

let running: DiscordFake | undefined;
let started: StartedGateway | undefined;

afterEach(async () => {
  await started?.stop();
  await running?.close();
  started = undefined;
  running = undefined;
});

const allKinds = { types: ["image", "audio", "video", "document"] as const, maxBytes: 5_000_000 };
const DM = "800000000000000009";
const USER = "700000000000000123";

/** The fake and the gateway alone on it (testkit's recording context), connected. */
async function boot(media?: DiscordGatewayOptions["media"]): Promise<StartedGateway & { fake: DiscordFake }> {
  const f = await DiscordFake.start({ heartbeatIntervalMs: DISCORD_HEARTBEAT_INTERVAL_MS * SCALE });
  running = f;
  const gateway = createGateway({
    name: "discord",
    botTokenEnvVar: "DISCORD_TOKEN",
    env: { DISCORD_TOKEN: f.token },
    apiBaseUrl: f.apiBaseUrl,
    watchdogMs: DEFAULT_WATCHDOG_MS * SCALE,
    backoff: { baseMs: 20, maxMs: 200 },
    ...(media ? { media } : {}),
  });
  started = await startGatewayAlone(gateway);
  await eventually(() => f.sessions.current !== undefined, "READY");
  return { ...started, fake: f };
}

// A PNG signature and its IHDR chunk head: typed by webhook-kit's sniff (file-type).
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(3000, 3)]);

it("takes an attachment-only DM in: fetched from its signed CDN URL, typed by its bytes, stored before deliver", async () => {
  const { fake, delivered, blobs } = await boot({ ...allKinds, types: [...allKinds.types] });
  // No content_type (Discord's field is optional): the bytes say PNG.
  const { content_type: _, ...attachment } = fake.cdn.host(PNG, "screenshot.png", "image/png", DM);
  fake.sessions.userSays({ channelId: DM, authorId: USER, content: "", attachments: [attachment] });
  await eventually(() => delivered.length === 1, "the message");
  const [ref] = delivered[0]?.attachments ?? [];
  expect(ref).toMatchObject({
    kind: "image",
    contentType: "image/png",
    size: PNG.length,
    name: "screenshot.png",
  });
  expect(ref && "blob" in ref && blobs.stored.get(ref.blob)?.bytes.equals(PNG)).toBe(true);
  expect(delivered[0]?.text).toBe("");
  expect([...fake.cdn.downloads.values()]).toEqual([1]);
});

it("downloads an attachment once when the message is dispatched again", async () => {
  const { fake, delivered } = await boot({ ...allKinds, types: [...allKinds.types] });
  const attachment = fake.cdn.host(PNG, "a.png", "image/png", DM);
  const first = fake.sessions.userSays({
    channelId: DM,
    authorId: USER,
    content: "look",
    attachments: [attachment],
  });
  fake.sessions.userSays({
    channelId: DM,
    authorId: USER,
    content: "look",
    attachments: [attachment],
    messageId: first.messageId,
  });
  // Dispatches are handled in order: once the next message is in, the repeat has been handled.
  const after = fake.sessions.userSays({ channelId: DM, authorId: USER, content: "next" });
  await eventually(() => delivered.some((m) => m.dedupKey === after.messageId), "the next message");
  expect(delivered.map((m) => m.text)).toEqual(["look", "next"]);
  expect(delivered[0]?.attachments?.[0]).toMatchObject({ kind: "image", contentType: "image/png" });
  expect([...fake.cdn.downloads.values()]).toEqual([1]);
});

it("a CDN URL past its expiry (replayed late) delivers the message with the file refused, and later events still arrive", async () => {
  const { fake, delivered } = await boot({ ...allKinds, types: [...allKinds.types] });
  const attachment = fake.cdn.host(PNG, "old.png", "image/png", DM, -60);
  fake.sessions.userSays({ channelId: DM, authorId: USER, content: "old", attachments: [attachment] });
  const after = fake.sessions.userSays({ channelId: DM, authorId: USER, content: "next" });
  await eventually(() => delivered.some((m) => m.dedupKey === after.messageId), "the next message");
  expect(delivered.map((m) => m.text)).toEqual(["old", "next"]);
  expect(delivered[0]?.attachments).toEqual([{ refused: "failed", kind: "image", name: "old.png" }]);
  expect(fake.cdn.downloads.size).toBe(0);
});

it("refuses an attachment without a download when the entry has no media block, and still delivers for the answer", async () => {
  const { fake, delivered } = await boot();
  fake.sessions.userSays({
    channelId: DM,
    authorId: USER,
    content: "",
    attachments: [fake.cdn.host(PNG, "a.png", "image/png", DM)],
  });
  await eventually(() => delivered.length === 1, "the message");
  expect(delivered[0]?.attachments).toEqual([{ refused: "disabled", kind: "image", name: "a.png" }]);
  expect(fake.cdn.downloads.size).toBe(0);
});

it("refuses an attachment URL off Discord's CDN without a request", async () => {
  const { fake, delivered } = await boot({ ...allKinds, types: [...allKinds.types] });
  const attachment = {
    ...fake.cdn.host(PNG, "a.png", "image/png", DM),
    url: "http://169.254.169.254/latest",
  };
  fake.sessions.userSays({ channelId: DM, authorId: USER, content: "", attachments: [attachment] });
  await eventually(() => delivered.length === 1, "the message");
  expect(delivered[0]?.attachments).toEqual([{ refused: "failed", kind: "image", name: "a.png" }]);
});
