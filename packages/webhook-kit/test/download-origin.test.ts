// fetchAttachment's redirects across schemes on one host and port, over real https and http at
// 127.0.0.1: credentials stay on the origin they were given for (WHATWG fetch drops them on a
// redirect to another origin: scheme, host and port), and a file is never followed from https down
// to http.
import { describe, expect, it } from "vitest";
import { DownloadRefused, fetchAttachment } from "../src/index.js";
import { memoryBlobs } from "./download-rig.js";
import { samePortTls } from "./same-port-tls.js";

const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(200, 1)]);
const policy = { types: ["audio" as const], maxBytes: 10_000, allowedHosts: ["127.0.0.1"] };

describe("fetchAttachment redirects across schemes", () => {
  it("follows http to https on the same host and port without the platform's credentials", async () => {
    const server = await samePortTls((scheme, _req, res) => {
      if (scheme === "http") return void res.writeHead(302, { location: `${server.https}/cdn/f` }).end();
      res.writeHead(200).end(OGG);
    });
    const ref = await fetchAttachment(
      { blobs: memoryBlobs(), gateway: "g" },
      {
        sourceKey: "up",
        url: `${server.http}/media/f`,
        kind: "audio",
        headers: { authorization: "Bot secret" },
      },
      policy,
    );
    expect(ref).toMatchObject({ kind: "audio", contentType: "audio/ogg" });
    expect(server.seen).toEqual([
      { scheme: "http", url: "/media/f", authorization: "Bot secret" },
      { scheme: "https", url: "/cdn/f", authorization: undefined },
    ]);
  });

  it("refuses a redirect from https down to http on the same host and port, and asks nothing over http", async () => {
    const server = await samePortTls((scheme, _req, res) => {
      if (scheme === "https") return void res.writeHead(307, { location: `${server.http}/cdn/f` }).end();
      res.writeHead(200).end(OGG);
    });
    const blobs = memoryBlobs();
    for (const headers of [{ authorization: "Basic c2lkOnRva2Vu" }, undefined]) {
      const source = {
        sourceKey: headers ? "down-credentialed" : "down",
        url: `${server.https}/media/f`,
        kind: "audio" as const,
        ...(headers ? { headers } : {}),
      };
      await expect(fetchAttachment({ blobs, gateway: "g" }, source, policy)).rejects.toBeInstanceOf(
        DownloadRefused,
      );
    }
    expect(server.seen.map((s) => s.scheme)).toEqual(["https", "https"]);
    expect(blobs.stored.size).toBe(0);
  });
});
