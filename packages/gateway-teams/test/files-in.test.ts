// A user's files through the real messaging endpoint, as the Teams fake sends and serves them
// (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4): a personal
// chat's file share (`application/vnd.microsoft.teams.file.download.info`, a pre-authenticated
// `downloadUrl` that expires) and a pasted picture (`image/*` whose `contentUrl` on the Bot
// Connector needs the bot's token). Stored before the activity is acknowledged, once per file.
import { afterEach, expect, it } from "vitest";
import type { TeamsGateway, TeamsGatewayOptions } from "../src/index.js";
import { type FilesContext, filesContext } from "./context.js";
import { alice, type TeamsWorld, teamsWorld } from "./harness.js";

let world: TeamsWorld;
let gateway: TeamsGateway;
let t: FilesContext;

afterEach(async () => {
  await gateway?.stop();
  t?.stop();
  await world?.close();
});

const media = { types: ["image", "audio", "video", "document"] as const, maxBytes: 1_000_000 };
const conversationId = "a:1files";
// A PNG signature and its IHDR chunk head: typed by webhook-kit's sniff (file-type).
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(3000, 5)]);
const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(2000, 32)]);

async function boot(withMedia: TeamsGatewayOptions["media"] | null = { ...media, types: [...media.types] }) {
  world = await teamsWorld();
  t = filesContext();
  gateway = world.build(withMedia ? { media: withMedia } : {});
  await gateway.start(t.context);
}

function say(attachments: Record<string, unknown>[], text = "", id?: string) {
  return world.fake.deliver(
    world.fake.messageActivity({ conversationId, from: alice, text, attachments, ...(id ? { id } : {}) }),
  );
}

it("takes a file shared in a personal chat in from its pre-authenticated link (no token sent), typed by its bytes, before the ack", async () => {
  await boot();
  // Teams' claim (fileType xlsx) is wrong; the bytes say PDF.
  const answer = await say(
    [world.fake.fileShare(PDF, { name: "figures.xlsx", fileType: "xlsx" })],
    "see this",
  );
  expect(answer.status).toBe(200);
  expect(t.delivered).toHaveLength(1);
  const [ref] = t.delivered[0]?.attachments ?? [];
  expect(ref).toMatchObject({
    kind: "document",
    contentType: "application/pdf",
    size: PDF.length,
    name: "figures.xlsx",
  });
  expect(ref && "blob" in ref && t.blobs.stored.get(ref.blob)?.bytes.equals(PDF)).toBe(true);
  expect(world.fake.fileRequests).toHaveLength(1);
  expect(world.fake.fileRequests[0]?.authorization).toBeUndefined();
});

it("fetches a pasted picture from the connector with the bot's token, and ignores the message's text/html copy", async () => {
  await boot();
  const picture = world.fake.inlinePicture(PNG);
  const html = { contentType: "text/html", content: `<div><img src="${String(picture.contentUrl)}"></div>` };
  expect((await say([picture, html])).status).toBe(200);
  const refs = t.delivered[0]?.attachments ?? [];
  expect(refs).toHaveLength(1);
  expect(refs[0]).toMatchObject({ kind: "image", contentType: "image/png", size: PNG.length });
  expect(world.fake.fileRequests[0]).toMatchObject({ status: 200 });
  expect(world.fake.fileRequests[0]?.authorization).toMatch(/^Bearer /);
});

it("drops a bot token the connector refuses for a picture, so the redelivery fetches it with a new one", async () => {
  await boot();
  await world.fake.deliverAcknowledged(
    world.fake.messageActivity({ conversationId, from: alice, text: "hi" }),
  );
  // The token cached for the first picture; the connector then stops taking it.
  expect((await say([world.fake.inlinePicture(PNG)], "", "1first")).status).toBe(200);
  world.fake.revokeIssuedTokens();
  const picture = world.fake.inlinePicture(PNG);
  expect((await say([picture], "", "1second")).status).toBe(500);
  expect((await say([picture], "", "1second")).status).toBe(200);
  expect(t.delivered.at(-1)?.attachments?.[0]).toMatchObject({ kind: "image", contentType: "image/png" });
});

it("fetches a file once when the connector sends the same activity again", async () => {
  await boot();
  const share = world.fake.fileShare(PDF, { name: "a.pdf" });
  for (let i = 0; i < 2; i++) expect((await say([share], "", "1again")).status).toBe(200);
  const id = String((share.content as { uniqueId: string }).uniqueId);
  expect(world.fake.fileFetches.get(id)).toBe(1);
  expect(t.delivered[1]?.attachments).toEqual(t.delivered[0]?.attachments);
});

it("goes on without a file whose link has expired (refused failed, warned) instead of failing every redelivery", async () => {
  await boot();
  const share = world.fake.fileShare(PDF, { name: "old.pdf", expiresInMs: -1 });
  expect((await say([share], "here")).status).toBe(200);
  expect(t.delivered[0]?.attachments).toEqual([{ refused: "failed", kind: "document", name: "old.pdf" }]);
  expect(world.fake.fileRequests[0]?.status).toBe(401);
  expect(t.logs.lines().some((l) => l.msg === "a file of the message is gone (expired link?)")).toBe(true);
});

it("never sends the bot's token to a picture URL off the connector's hosts, nor fetches a share off SharePoint", async () => {
  await boot();
  const answer = await say([
    { contentType: "image/*", contentUrl: "https://attacker.example/v3/attachments/x/views/original" },
    {
      contentType: "application/vnd.microsoft.teams.file.download.info",
      name: "x.pdf",
      content: { downloadUrl: "http://169.254.169.254/latest/meta-data", uniqueId: "U1", fileType: "pdf" },
    },
  ]);
  expect(answer.status).toBe(200);
  expect(t.delivered[0]?.attachments).toEqual([
    { refused: "failed", kind: "image" },
    { refused: "failed", kind: "document", name: "x.pdf" },
  ]);
  expect(world.fake.fileRequests).toEqual([]);
});

it("refuses a file without a download when the entry has no media block, and still delivers it for the answer", async () => {
  await boot(null);
  expect((await say([world.fake.fileShare(PDF, { name: "a.pdf" })])).status).toBe(200);
  expect(t.delivered[0]?.attachments).toEqual([{ refused: "disabled", kind: "document", name: "a.pdf" }]);
  expect(world.fake.fileRequests).toEqual([]);
});
