// Pictures linked in a comment through the real webhook route: GitHub writes a pasted picture as
// `![name](https://github.com/user-attachments/assets/<uuid>)` (or an `<img src>` tag), and the link
// redirects to a short-lived signed URL (https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/attaching-files).
// With a media block each is fetched (no token sent), typed by its bytes and stored before the
// comment is recorded; other links stay text.
import type { GatewayContext, Inbound } from "@agentsvc/adapter-kit";
import { Scheduler } from "@agentsvc/session-core";
import { captureLogs, type MemoryBlobs, memoryBlobs } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import type { GithubGateway } from "../src/index.js";
import { alice, type GithubWorld, githubWorld, SECRETS } from "./harness.js";

const bot = `@${SECRETS.GH_TEST_BOT_NAME}`;
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(3000, 8)]);
let world: GithubWorld;
let gateway: GithubGateway;
let stopScheduler = () => {};

afterEach(async () => {
  await gateway?.stop();
  stopScheduler();
  await world?.close();
});

async function boot(media?: { types: ("image" | "document")[]; maxBytes: number }) {
  world = await githubWorld();
  gateway = world.build(media ? { media } : {});
  const logs = captureLogs();
  const scheduler = new Scheduler(logs.logger);
  stopScheduler = () => scheduler.stopAll();
  const delivered: Inbound[] = [];
  const blobs = memoryBlobs();
  const context = {
    deliver: async (inbound: Inbound) => {
      delivered.push(inbound);
      return { accepted: true, id: delivered.length };
    },
    interaction: async () => undefined,
    state: { get: async () => undefined, set: async () => {}, delete: async () => {} },
    logger: logs.logger,
    scheduler: scheduler.forGateway("github", logs.logger),
    env: process.env,
    blobs,
  } as unknown as GatewayContext;
  await gateway.start(context);
  return { delivered, blobs, logs };
}

it("takes a pasted picture in through its redirect to the signed URL, typed by its bytes, with no token sent", async () => {
  const { delivered, blobs } = await boot({ types: ["image"], maxBytes: 1_000_000 });
  const link = world.fake.asset(PNG);
  const answer = await world.fake.commentOnIssue({
    number: 7,
    body: `${bot} what is wrong here?\n\n![Screenshot 2026-12-01](${link})\n\nsee also https://example.com/x.png`,
    user: alice,
  });
  expect(answer.status).toBe(200);
  const refs = delivered[0]?.attachments ?? [];
  expect(refs).toHaveLength(1);
  const [ref] = refs;
  expect(ref).toMatchObject({ kind: "image", contentType: "image/png", size: PNG.length });
  expect(ref && "blob" in ref && (blobs as MemoryBlobs).stored.get(ref.blob)?.bytes.equals(PNG)).toBe(true);
  expect(world.fake.assetRequests.map((r) => r.status)).toEqual([302, 200]);
  expect(world.fake.assetRequests.every((r) => r.authorization === undefined)).toBe(true);
});

it("reads an <img> tag too, takes each picture once, and leaves a gone one out instead of losing the comment", async () => {
  const { delivered, logs } = await boot({ types: ["image"], maxBytes: 1_000_000 });
  const link = world.fake.asset(PNG);
  const gone = `${world.fake.url}/user-attachments/assets/00000000-0000-0000-0000-000000000000`;
  const body = `${bot} compare <img width="300" alt="a" src="${link}" /> ![again](${link}) ![b](${gone})`;
  expect((await world.fake.commentOnIssue({ number: 8, body, user: alice })).status).toBe(200);
  expect(delivered[0]?.attachments).toEqual([
    expect.objectContaining({ kind: "image", contentType: "image/png" }),
    { refused: "failed", kind: "image", name: "00000000-0000-0000-0000-000000000000" },
  ]);
  expect(logs.lines().some((l) => l.msg === "a picture of the comment could not be fetched; left out")).toBe(
    true,
  );
});

it("fetches nothing without a media block: the links stay text", async () => {
  const { delivered } = await boot();
  const link = world.fake.asset(PNG);
  expect(
    (await world.fake.commentOnIssue({ number: 9, body: `${bot} ![x](${link})`, user: alice })).status,
  ).toBe(200);
  expect(delivered[0]?.attachments).toBeUndefined();
  expect(delivered[0]?.text).toContain(link);
  expect(world.fake.assetRequests).toEqual([]);
});
