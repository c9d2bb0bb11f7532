// A reply's files through the Slack fake's upload flow (https://api.slack.com/messaging/files#upload):
// files.getUploadURLExternal, the bytes POSTed to the upload URL, files.completeUploadExternal into
// the channel or thread.
import { ContractRig } from "@agentsvc/session-core/testing";
import type { OutboundFile } from "@agentsvc/adapter-kit";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SlackGateway } from "../src/index.js";
import { type SlackHarness, slackHarness } from "./harness.js";

let h: SlackHarness;
let rig: ContractRig;
let gateway: SlackGateway;

beforeAll(async () => {
  h = await slackHarness();
  rig = new ContractRig(h);
  await rig.start();
  gateway = rig.gateway as SlackGateway;
});

afterAll(async () => {
  await rig.stop();
  await h.close?.();
});

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

it("shares a file into the thread with its caption as the comment, bytes and name intact", async () => {
  const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(200_000, 5)]);
  await gateway.sendFile(
    "C0CHAN:1700000000.000100",
    file("report.pdf", "application/pdf", pdf, "Here it is"),
  );
  const shared = h.fake.files.shared.at(-1);
  expect(shared).toMatchObject({
    channel: "C0CHAN",
    threadTs: "1700000000.000100",
    name: "report.pdf",
    title: "report.pdf",
    comment: "Here it is",
  });
  expect(shared?.bytes.equals(pdf)).toBe(true);
});

it("starts again with a new upload URL when completing the upload failed, and shares the file once", async () => {
  h.fake.failNext("files.completeUploadExternal", { status: 500 });
  const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(100, 1)]);
  const before = h.fake.files.shared.length;
  await expect(gateway.sendFile("D0001", file("a.png", "image/png", png))).rejects.toThrow();
  expect(h.fake.files.shared.length).toBe(before);
  await gateway.sendFile("D0001", file("a.png", "image/png", png));
  expect(h.fake.files.shared.length).toBe(before + 1);
  const asked = h.fake.calls.filter((c) => c.method === "files.getUploadURLExternal").slice(-2);
  expect(asked.map((c) => c.params.filename)).toEqual(["a.png", "a.png"]);
});
