// Received files through the fake signal-cli daemon: listed in the data message's `attachments`
// as signal-cli's JSON output has them (`contentType`, `filename`, `id`, `size`) and handed over by
// `getAttachment` (signal-cli-jsonrpc(5), https://github.com/AsamK/signal-cli/blob/master/man/signal-cli-jsonrpc.5.adoc),
// typed by their bytes and stored before the message is recorded.
import { eventually, type FakeSignalDaemon, startSignalDaemon } from "@agentsvc/testkit";
import { type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import { SignalGateway, type SignalGatewayOptions } from "../src/index.js";
import { ACCOUNT } from "./harness.js";

let daemon: FakeSignalDaemon | undefined;
let alone: StartedGateway | undefined;

afterEach(async () => {
  await alone?.stop();
  await daemon?.close();
  alone = undefined;
  daemon = undefined;
});

const FROM = "+15550001111";
// A PNG signature and its IHDR chunk head: typed by webhook-kit's sniff (file-type).
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(2000, 3)]);

async function boot(
  media?: SignalGatewayOptions["media"],
): Promise<{ t: StartedGateway; blobs: StartedGateway["blobs"] }> {
  daemon = await startSignalDaemon({ accounts: [ACCOUNT] });
  const gateway = new SignalGateway({
    accountEnvVar: "SIGNAL_ACCOUNT",
    httpUrl: daemon.url,
    reconnect: { baseMs: 20, maxMs: 200 },
    ...(media ? { media } : {}),
  });
  alone = await startGatewayAlone(gateway, { env: { SIGNAL_ACCOUNT: ACCOUNT } });
  await eventually(() => (daemon?.openStreams ?? 0) > 0, "the events stream");
  return { t: alone, blobs: alone.blobs };
}

it("takes an uncaptioned picture in: fetched with getAttachment for the sender, typed by its bytes, stored", async () => {
  const { t, blobs } = await boot({ types: ["image"], maxBytes: 1_000_000 });
  const d = daemon as FakeSignalDaemon;
  const file = d.attachment(PNG, "application/octet-stream", "photo.png");
  d.receive(ACCOUNT, { from: FROM, text: "", attachments: [file] });
  await eventually(() => t.delivered.length === 1, "the message");
  const [ref] = t.delivered[0]?.attachments ?? [];
  expect(ref).toMatchObject({ kind: "image", contentType: "image/png", size: PNG.length, name: "photo.png" });
  expect(ref && "blob" in ref && blobs.stored.get(ref.blob)?.bytes.equals(PNG)).toBe(true);
  const call = d.rpcCalls.find((c) => c.method === "getAttachment");
  expect(call?.params).toMatchObject({ id: file.id });
  expect([call?.params.recipient].flat()).toEqual([FROM]);
});

it("fetches a file once when the same message is delivered again", async () => {
  const { t } = await boot({ types: ["image"], maxBytes: 1_000_000 });
  const d = daemon as FakeSignalDaemon;
  const file = d.attachment(PNG, "image/png", "a.png");
  d.receive(ACCOUNT, { from: FROM, text: "look", attachments: [file], timestamp: 1_700_000_100_000 });
  d.receive(ACCOUNT, { from: FROM, text: "look", attachments: [file], timestamp: 1_700_000_100_000 });
  // Each delivery is acknowledged with a read receipt once recorded: both were handled.
  await eventually(() => d.receipts.length === 2, "both deliveries recorded");
  expect(t.delivered).toHaveLength(1);
  expect(d.attachmentFetches.get(file.id)).toBe(1);
});

it("refuses a file without asking the daemon when the entry has no media block, and still delivers for the answer", async () => {
  const { t } = await boot();
  const d = daemon as FakeSignalDaemon;
  d.receive(ACCOUNT, { from: FROM, text: "", attachments: [d.attachment(PNG, "image/png", "a.png")] });
  await eventually(() => t.delivered.length === 1, "the message");
  expect(t.delivered[0]?.attachments).toEqual([{ refused: "disabled", kind: "image", name: "a.png" }]);
  expect(d.attachmentFetches.size).toBe(0);
});

it("refuses a file over media.maxBytes by the daemon's size, without fetching it", async () => {
  const { t } = await boot({ types: ["image"], maxBytes: 100 });
  const d = daemon as FakeSignalDaemon;
  d.receive(ACCOUNT, { from: FROM, text: "big", attachments: [d.attachment(PNG, "image/png", "a.png")] });
  await eventually(() => t.delivered.length === 1, "the message");
  expect(t.delivered[0]?.attachments).toEqual([
    { refused: "size", kind: "image", size: PNG.length, name: "a.png" },
  ]);
  expect(d.attachmentFetches.size).toBe(0);
});
