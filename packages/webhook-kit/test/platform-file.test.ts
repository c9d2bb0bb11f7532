// fetchPlatformFile against real HTTP on 127.0.0.1: nothing fetched without a media block, a store
// or an allowed kind; the configured API base's host allowed beside the platform's hosts, with the
// adapter's headers; a file off those hosts refused "failed" with the adapter's warning.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { DownloadFailed, fetchPlatformFile } from "../src/index.js";
import { memoryBlobs, serve } from "./download-rig.js";

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from("0000000d49484452", "hex"),
  Buffer.alloc(200, 7),
]);
const media = { types: ["image"] as const, maxBytes: 10_000 };

function logged() {
  const lines: { msg: string; file?: string }[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { lines, logger };
}

describe("fetchPlatformFile", () => {
  it("fetches from the API base's host with the adapter's headers and stores the file", async () => {
    const { base, seen } = await serve((req, res) => {
      if (req.headers.authorization !== "Bearer t") return void res.writeHead(401).end();
      res.writeHead(200).end(PNG);
    });
    const { logger } = logged();
    const ref = await fetchPlatformFile(
      { blobs: memoryBlobs(), logger },
      { id: "F1", url: `${base}/files/1`, kind: "image", name: "a.png", size: PNG.length },
      media,
      {
        gateway: "slack",
        hosts: ["files.example.com"],
        apiBaseUrl: base,
        headers: { authorization: "Bearer t" },
        refusedWarning: "off",
      },
    );
    expect(ref).toMatchObject({ kind: "image", contentType: "image/png", name: "a.png", size: PNG.length });
    expect(seen).toHaveLength(1);
  });

  it("refuses as disabled and fetches nothing without a media block, a store or a kind", async () => {
    const { base, seen } = await serve((_req, res) => void res.writeHead(200).end(PNG));
    const { logger } = logged();
    const file = { id: "F1", url: `${base}/f`, kind: "image" as const, name: "a.png" };
    const access = { gateway: "slack", hosts: [], apiBaseUrl: base, refusedWarning: "off" };
    const disabled = { refused: "disabled", kind: "image", name: "a.png" };
    expect(await fetchPlatformFile({ blobs: memoryBlobs(), logger }, file, undefined, access)).toEqual(
      disabled,
    );
    expect(await fetchPlatformFile({ logger }, file, media, access)).toEqual(disabled);
    expect(
      await fetchPlatformFile({ blobs: memoryBlobs(), logger }, file, { ...media, types: [] }, access),
    ).toEqual(disabled);
    expect(seen).toHaveLength(0);
  });

  it("refuses a URL off the platform's hosts as failed, with the adapter's warning naming the file", async () => {
    const { base, seen } = await serve((_req, res) => void res.writeHead(200).end(PNG));
    const { lines, logger } = logged();
    const ref = await fetchPlatformFile(
      { blobs: memoryBlobs(), logger },
      { id: "F9", url: `${base}/f`, kind: "image" },
      media,
      {
        gateway: "slack",
        hosts: ["files.example.com"],
        apiBaseUrl: "https://slack.example.com/api/",
        refusedWarning: "off Slack's host",
      },
    );
    expect(ref).toEqual({ refused: "failed", kind: "image" });
    expect(seen).toHaveLength(0);
    expect(lines).toMatchObject([{ msg: "off Slack's host", file: "F9" }]);
  });

  it("throws the host's HTTP error for the adapter to judge (retry or gone)", async () => {
    const { base } = await serve((_req, res) => void res.writeHead(410).end());
    const { logger } = logged();
    const fetching = fetchPlatformFile(
      { blobs: memoryBlobs(), logger },
      { id: "F2", url: `${base}/f`, kind: "image" },
      media,
      { gateway: "discord", hosts: [], apiBaseUrl: base, refusedWarning: "off" },
    );
    await expect(fetching).rejects.toBeInstanceOf(DownloadFailed);
  });
});
