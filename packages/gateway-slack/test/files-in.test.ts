// A user's shared files through the Slack fake's Socket Mode, in the documented `file_share` shape
// (https://api.slack.com/events/message/file_share, file objects per https://api.slack.com/types/file),
// fetched from `url_private` with the bot token (https://api.slack.com/types/file#authentication),
// stored before the envelope is acknowledged and handed over as refs.
import type { Gateway } from "@agentsvc/adapter-kit";
import { captureLogs, eventually, SlackFake } from "@agentsvc/testkit";
import { type MemoryBlobs, memoryBlobs } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import { createGateway, type SlackGatewayOptions } from "../src/index.js";
import { type RecordingContext, recordingContext } from "./context.js";

let fake: SlackFake;
let gateway: Gateway;
let rec: RecordingContext;
let blobs: MemoryBlobs;

afterEach(async () => {
  await gateway?.stop();
  rec?.stop();
  await fake?.close();
});

const allKinds = { types: ["image", "audio", "video", "document"] as const, maxBytes: 5_000_000 };

async function boot(media?: SlackGatewayOptions["media"]): Promise<void> {
  fake = await SlackFake.start({ ackTimeoutMs: 2_000 });
  rec = recordingContext(captureLogs().logger);
  blobs = memoryBlobs();
  gateway = createGateway({
    name: "slack",
    botTokenEnvVar: "SLACK_BOT",
    appTokenEnvVar: "SLACK_APP",
    env: { SLACK_BOT: fake.botToken, SLACK_APP: fake.appToken },
    apiBaseUrl: fake.apiBaseUrl,
    backoff: { baseMs: 20, maxMs: 200 },
    ...(media ? { media } : {}),
  });
  await gateway.start({ ...rec.context, blobs });
  await eventually(() => fake.openConnections.length > 0, "the socket connection");
}

function share(files: Record<string, unknown>[], text = "", ts = fake.workspace.nextTs()): Promise<void> {
  return fake.workspace.event({
    type: "message",
    subtype: "file_share",
    channel: "D0001",
    channel_type: "im",
    user: "U0001",
    text,
    ts,
    files,
  });
}

// A PNG signature and its IHDR chunk head: typed by webhook-kit's sniff (file-type).
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(3000, 3)]);

it("takes an uncaptioned shared picture in: fetched with the bot token, typed by its bytes, stored before the ack", async () => {
  await boot({ ...allKinds, types: [...allKinds.types] });
  // Slack's claim says document; the bytes say PNG.
  const file = fake.files.host(PNG, "screenshot.png", "application/octet-stream");
  await share([file]);
  expect(rec.delivered).toHaveLength(1);
  const [ref] = rec.delivered[0]?.attachments ?? [];
  expect(ref).toMatchObject({
    kind: "image",
    contentType: "image/png",
    size: PNG.length,
    name: "screenshot.png",
  });
  expect(ref && "blob" in ref && blobs.stored.get(ref.blob)?.bytes.equals(PNG)).toBe(true);
  expect(rec.delivered[0]?.text).toBe("");
  expect([...fake.files.downloads.values()]).toEqual([1]);
});

it("downloads a file once when Slack delivers its message again", async () => {
  await boot({ ...allKinds, types: [...allKinds.types] });
  const file = fake.files.host(PNG, "a.png", "image/png");
  const ts = fake.workspace.nextTs();
  await share([file], "look", ts);
  await share([file], "look", ts);
  expect(rec.delivered).toHaveLength(2);
  expect(rec.delivered.map((m) => m.dedupKey)).toEqual([`D0001:${ts}`, `D0001:${ts}`]);
  expect(rec.delivered[1]?.attachments?.[0]).toMatchObject({ kind: "image", contentType: "image/png" });
  expect([...fake.files.downloads.values()]).toEqual([1]);
});

it("refuses a file without a download when the entry has no media block, and still delivers for the answer", async () => {
  await boot();
  await share([fake.files.host(PNG, "a.png", "image/png")]);
  expect(rec.delivered[0]?.attachments).toEqual([{ refused: "disabled", kind: "image", name: "a.png" }]);
  expect(fake.files.downloads.size).toBe(0);
});

it("refuses a kind the entry does not take in, without a download", async () => {
  await boot({ types: ["audio"], maxBytes: 5_000_000 });
  await share([fake.files.host(PNG, "a.png", "image/png")]);
  expect(rec.delivered[0]?.attachments?.[0]).toMatchObject({ refused: "type", kind: "image" });
  expect(fake.files.downloads.size).toBe(0);
});

it("refuses a url_private off Slack's file host (no request made, the token never sent elsewhere)", async () => {
  await boot({ ...allKinds, types: [...allKinds.types] });
  const file = {
    ...fake.files.host(PNG, "a.png", "image/png"),
    url_private: "http://169.254.169.254/latest/meta-data",
  };
  await share([file]);
  expect(rec.delivered[0]?.attachments).toEqual([{ refused: "failed", kind: "image", name: "a.png" }]);
});

it("skips external files (bytes kept elsewhere) and ignores a share with nothing to take", async () => {
  await boot({ ...allKinds, types: [...allKinds.types] });
  await share([{ id: "F0EXT", name: "doc", mode: "external", url_private: "https://docs.google.com/x" }]);
  expect(rec.delivered).toHaveLength(0);
});
