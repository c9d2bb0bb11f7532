// A reply's file through the Teams fake's connector
// (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4): a small
// picture inline as a data URI attachment; any other file in a personal chat as a file consent card,
// uploaded into the OneDrive upload session of the `fileConsent/invoke` once the user allows it
// (https://learn.microsoft.com/en-us/graph/api/driveitem-createuploadsession), then shown with a
// file info card; in a group chat or channel a link to the service's signed URL.
import type { OutboundFile, SendOptions } from "@agentsvc/adapter-kit";
import { afterEach, expect, it } from "vitest";
import type { TeamsGateway } from "../src/index.js";
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

const conversationId = "a:1out";
const personal: SendOptions = {
  idempotencyKey: "teams:in1:file0",
  attempt: 1,
  meta: { conversationType: "personal" },
};
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(4000, 9)]);

async function boot(): Promise<void> {
  world = await teamsWorld();
  t = filesContext();
  gateway = world.build();
  await gateway.start(t.context);
  // The conversation is known to the fake (and its serviceUrl to the gateway) from a first message.
  await world.fake.deliverAcknowledged(
    world.fake.messageActivity({ conversationId, from: alice, text: "hi" }),
  );
}

async function file(name: string, contentType: string, bytes: Buffer, extra: Partial<OutboundFile> = {}) {
  const { sha256, size } = await t.blobs.put(bytes, contentType);
  return { blob: sha256, name, contentType, size, bytes: async () => bytes, ...extra } as OutboundFile;
}

const consentCardOf = (id: string) =>
  ((world.fake.sent.find((s) => s.id === id)?.activity.attachments ?? []) as { contentType: string }[])[0];

it("sends a small picture inline as a data URI attachment with its caption", async () => {
  await boot();
  const result = await gateway.sendFile(
    conversationId,
    await file("chart.png", "image/png", PNG, { caption: "Your chart" }),
    personal,
  );
  const sent = world.fake.sent.at(-1);
  expect(result).toEqual({ messageId: sent?.id });
  expect(sent?.text).toBe("Your chart");
  expect(sent?.activity.attachments).toEqual([
    {
      contentType: "image/png",
      contentUrl: `data:image/png;base64,${PNG.toString("base64")}`,
      name: "chart.png",
    },
  ]);
});

it("offers a document in a personal chat with a consent card and uploads it into the user's OneDrive once allowed, once", async () => {
  await boot();
  const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(400_000, 65)]);
  const result = await gateway.sendFile(
    conversationId,
    await file("report.pdf", "application/pdf", pdf),
    personal,
  );
  const cardId = String(result?.messageId);
  expect(consentCardOf(cardId)).toMatchObject({
    contentType: "application/vnd.microsoft.teams.card.file.consent",
    name: "report.pdf",
    content: { sizeInBytes: pdf.length },
  });
  expect((await world.fake.answerConsent(cardId, alice, "accept")).status).toBe(200);
  const [upload] = [...world.fake.uploads.values()];
  expect(upload?.complete).toBe(true);
  expect(upload?.bytes.equals(pdf)).toBe(true);
  const info = world.fake.sent.at(-1)?.activity.attachments as { contentType: string; name: string }[];
  expect(info[0]).toMatchObject({
    contentType: "application/vnd.microsoft.teams.card.file.info",
    name: "report.pdf",
  });
  // Allow pressed again (or the invoke sent again): nothing more is uploaded or posted.
  const posted = world.fake.sent.length;
  expect((await world.fake.answerConsent(cardId, alice, "accept")).status).toBe(200);
  expect(world.fake.sent).toHaveLength(posted);
  expect([...world.fake.uploads.values()].filter((u) => u.bytes.length > 0)).toHaveLength(1);
});

it("offers the same consent card when the piece is sent again after a failure (one file kept, one upload)", async () => {
  await boot();
  const pdf = Buffer.from("%PDF-1.7\nshort");
  const f = await file("a.pdf", "application/pdf", pdf);
  const first = await gateway.sendFile(conversationId, f, personal);
  const second = await gateway.sendFile(conversationId, f, { ...personal, attempt: 2 });
  expect([...t.state.keys()].filter((k) => k.startsWith("consent:"))).toHaveLength(1);
  expect((await world.fake.answerConsent(String(first?.messageId), alice, "accept")).status).toBe(200);
  expect((await world.fake.answerConsent(String(second?.messageId), alice, "accept")).status).toBe(200);
  expect([...world.fake.uploads.values()].filter((u) => u.complete)).toHaveLength(1);
});

it("uploads nothing when the user denies, and forgets the file", async () => {
  await boot();
  const result = await gateway.sendFile(
    conversationId,
    await file("a.pdf", "application/pdf", Buffer.from("%PDF-1.7\nx")),
    personal,
  );
  const before = world.fake.sent.length;
  expect((await world.fake.answerConsent(String(result?.messageId), alice, "decline")).status).toBe(200);
  expect(world.fake.uploads.size).toBe(0);
  expect(world.fake.sent).toHaveLength(before);
  expect([...t.state.keys()].filter((k) => k.startsWith("consent:"))).toEqual([]);
});

it("uploads nothing for a consent invoke naming a file this bot did not offer, or an upload URL off OneDrive", async () => {
  await boot();
  const result = await gateway.sendFile(
    conversationId,
    await file("a.pdf", "application/pdf", Buffer.from("%PDF-1.7\nx")),
    personal,
  );
  const card = consentCardOf(String(result?.messageId)) as unknown as {
    content: { acceptContext: { key: string } };
  };
  const invoke = (key: string, uploadUrl: string) => ({
    ...world.fake.messageActivity({ conversationId, from: alice, text: "" }),
    type: "invoke",
    name: "fileConsent/invoke",
    value: {
      type: "fileUpload",
      action: "accept",
      context: { key },
      uploadInfo: {
        contentUrl: "https://x.sharepoint.com/a.pdf",
        name: "a.pdf",
        uploadUrl,
        uniqueId: "U",
        fileType: "pdf",
      },
    },
  });
  const before = world.fake.sent.length;
  expect(
    (await world.fake.deliver(invoke("consent:forged", `${world.fake.url}/upload-session/x`))).status,
  ).toBe(200);
  expect(
    (await world.fake.deliver(invoke(card.content.acceptContext.key, "https://attacker.example/up"))).status,
  ).toBe(400);
  expect(world.fake.sent).toHaveLength(before);
});

it("sends a document in a group chat as a link to the signed file URL (no consent card there)", async () => {
  await boot();
  const url = "https://agent.example/files/abc/report.pdf?exp=1&sig=x";
  await gateway.sendFile(
    conversationId,
    await file("report.pdf", "application/pdf", Buffer.from("%PDF-1.7\nx"), { url }),
    { ...personal, meta: { conversationType: "groupChat" } },
  );
  expect(world.fake.sent.at(-1)?.text).toBe(`📎 report.pdf (10 B): ${url}`);
  expect(world.fake.sent.at(-1)?.activity.attachments).toBeUndefined();
});
