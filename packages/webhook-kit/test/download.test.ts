// fetchAttachment against real HTTP on 127.0.0.1: what is stored, what is refused (host, size,
// type) and that a platform file is fetched once per gateway.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DownloadRefused, fetchAttachment, sniff } from "../src/index.js";
import { memoryBlobs, serve } from "./download-rig.js";

// A PNG signature and the head of its IHDR chunk (file-type checks both, https://www.w3.org/TR/png/#5PNG-file-signature).
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from("0000000d49484452", "hex"),
  Buffer.alloc(200, 7),
]);
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(200, 1)]);
const HTML = Buffer.from(`<!doctype html><html><script>alert(1)</script>${" ".repeat(100)}</html>`);

const policy = { types: ["image", "audio"] as const, maxBytes: 10_000, allowedHosts: ["127.0.0.1"] };

describe("fetchAttachment", () => {
  it("stores the bytes under their sha256 typed by content, and a redelivery fetches nothing", async () => {
    const { base, seen } = await serve((req, res) => {
      if (req.headers.authorization !== "Bearer t0k") return void res.writeHead(401).end();
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(PNG);
    });
    const blobs = memoryBlobs();
    const store = { blobs, gateway: "whatsapp" };
    const source = {
      sourceKey: "m1",
      url: `${base}/media/1`,
      kind: "image" as const,
      name: "p.png",
      headers: { authorization: "Bearer t0k" },
    };
    const ref = await fetchAttachment(store, source, { ...policy, types: [...policy.types] });
    const sha = createHash("sha256").update(PNG).digest("hex");
    expect(ref).toEqual({
      blob: sha,
      kind: "image",
      contentType: "image/png",
      size: PNG.length,
      name: "p.png",
    });
    expect(blobs.stored.get(sha)?.bytes.equals(PNG)).toBe(true);
    expect(await fetchAttachment(store, source, { ...policy, types: [...policy.types] })).toEqual(ref);
    expect(seen).toHaveLength(1);
  });

  it("refuses a host that is not the platform's, before any request", async () => {
    const { base, seen } = await serve((_req, res) => res.end(PNG));
    const source = { sourceKey: "x", url: base.replace("127.0.0.1", "localhost"), kind: "image" as const };
    await expect(
      fetchAttachment({ blobs: memoryBlobs(), gateway: "g" }, source, { ...policy, types: ["image"] }),
    ).rejects.toBeInstanceOf(DownloadRefused);
    const file = { sourceKey: "y", url: "file:///etc/passwd", kind: "document" as const };
    await expect(
      fetchAttachment({ blobs: memoryBlobs(), gateway: "g" }, file, { ...policy, types: ["document"] }),
    ).rejects.toBeInstanceOf(DownloadRefused);
    expect(seen).toHaveLength(0);
  });

  it("follows a redirect to another allowed host without the platform's credentials, and refuses one to a foreign host", async () => {
    const cdn = await serve((_req, res) => res.end(OGG));
    const api = await serve((req, res) => {
      const to =
        req.url === "/evil"
          ? "http://169.254.169.254/latest"
          : `${cdn.base.replace("127.0.0.1", "localhost")}/f`;
      res.writeHead(302, { location: to }).end();
    });
    const blobs = memoryBlobs();
    const allowed = { ...policy, types: ["audio" as const], allowedHosts: ["127.0.0.1", "localhost"] };
    const ok = await fetchAttachment(
      { blobs, gateway: "g" },
      { sourceKey: "v", url: `${api.base}/ok`, kind: "audio", headers: { authorization: "Bot secret" } },
      allowed,
    );
    expect(ok).toMatchObject({ kind: "audio", contentType: "audio/ogg" });
    expect(cdn.seen[0]?.headers.authorization).toBeUndefined();
    await expect(
      fetchAttachment(
        { blobs, gateway: "g" },
        { sourceKey: "e", url: `${api.base}/evil`, kind: "audio" },
        allowed,
      ),
    ).rejects.toBeInstanceOf(DownloadRefused);
  });

  it("refuses a file over the cap from its Content-Length, and one without a length once the count passes the cap", async () => {
    let streamedClosed = false;
    const { base } = await serve((req, res) => {
      if (req.url === "/declared")
        return void res.writeHead(200, { "content-length": "50000" }).end(Buffer.alloc(50_000));
      res.writeHead(200); // chunked: no length
      res.on("close", () => {
        streamedClosed = true;
      });
      const tick = () => {
        if (res.destroyed) return;
        res.write(Buffer.concat([PNG, Buffer.alloc(4000)]), () => setImmediate(tick));
      };
      tick();
    });
    const blobs = memoryBlobs();
    const store = { blobs, gateway: "g" };
    expect(
      await fetchAttachment(
        store,
        { sourceKey: "d", url: `${base}/declared`, kind: "image" },
        { ...policy, types: ["image"] },
      ),
    ).toEqual({
      refused: "size",
      kind: "image",
      size: 50_000,
    });
    const streamed = await fetchAttachment(
      store,
      { sourceKey: "s", url: `${base}/streamed`, kind: "image" },
      { ...policy, types: ["image"] },
    );
    expect(streamed).toMatchObject({ refused: "size", kind: "image" });
    await expect.poll(() => streamedClosed, { timeout: 5000 }).toBe(true);
    expect(blobs.stored.size).toBe(0);
    // The refusal is remembered: the platform's retry of the message gets the same answer without a fetch.
    expect(await blobs.download("g", "s")).toEqual({ refused: "size" });
  });

  it("decides the type by the bytes: markup claimed as a photo is refused, and a kind the entry does not take is refused unfetched", async () => {
    const { base, seen } = await serve((_req, res) =>
      res.writeHead(200, { "content-type": "image/jpeg" }).end(HTML),
    );
    const store = { blobs: memoryBlobs(), gateway: "g" };
    expect(
      await fetchAttachment(
        store,
        { sourceKey: "h", url: `${base}/x.jpg`, kind: "image" },
        { ...policy, types: ["image"] },
      ),
    ).toEqual({
      refused: "type",
      kind: "image",
    });
    expect(
      await fetchAttachment(
        store,
        { sourceKey: "v", url: `${base}/v.mp4`, kind: "video" },
        { ...policy, types: ["image"] },
      ),
    ).toEqual({
      refused: "type",
      kind: "video",
    });
    expect(
      await fetchAttachment(
        store,
        { sourceKey: "n", url: `${base}/n`, kind: "image" },
        { ...policy, types: [] },
      ),
    ).toEqual({
      refused: "disabled",
      kind: "image",
    });
    expect(seen).toHaveLength(1);
  });

  it("gives up on a transfer that outlives its deadline (throws, so the platform retries)", async () => {
    const { base } = await serve((_req, res) => {
      res.writeHead(200);
      res.write(PNG); // and never ends
    });
    const store = { blobs: memoryBlobs(), gateway: "g" };
    await expect(
      fetchAttachment(
        store,
        { sourceKey: "slow", url: base, kind: "image" },
        { ...policy, types: ["image"], timeoutMs: 300 },
      ),
    ).rejects.toThrow();
    expect(await store.blobs.download("g", "slow")).toBeUndefined();
  });
});

describe("sniff (file-type)", () => {
  it("names formats by their signatures, not by anything claimed", async () => {
    expect(await sniff(PNG)).toEqual({ contentType: "image/png", kind: "image" });
    expect(await sniff(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toEqual({
      contentType: "image/jpeg",
      kind: "image",
    });
    expect((await sniff(OGG)).contentType).toBe("audio/ogg");
    expect((await sniff(Buffer.from("%PDF-1.7\n"))).contentType).toBe("application/pdf");
    expect((await sniff(Buffer.from("\u0000\u0000\u0000\u0018ftypmp42"))).kind).toBe("video");
    expect((await sniff(Buffer.from("\u0000\u0000\u0000\u0018ftypM4A "))).contentType).toBe("audio/mp4");
    expect(await sniff(HTML)).toEqual({ contentType: "text/plain", kind: "document" });
    expect(await sniff(Buffer.from([0x00, 0x01, 0x02, 0x03, 0xfe]))).toEqual({
      contentType: "application/octet-stream",
      kind: "document",
    });
  });

  it("never takes an executable or an archive for a picture, whatever its name", async () => {
    const exe = await sniff(Buffer.concat([Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03]), Buffer.alloc(200)]));
    expect(exe.kind).toBe("document");
    expect((await sniff(Buffer.concat([Buffer.from("PK\u0003\u0004"), Buffer.alloc(100)]))).kind).toBe(
      "document",
    );
  });

  it("names an Ogg Opus voice note audio/ogg without codec parameters", async () => {
    // An Ogg page whose first packet is OpusHead (RFC 7845 section 5.1).
    const page = Buffer.alloc(64);
    page.write("OggS", 0);
    page[5] = 0x02;
    page[26] = 1;
    page[27] = 19;
    page.write("OpusHead", 28);
    expect(await sniff(page)).toEqual({ contentType: "audio/ogg", kind: "audio" });
  });
});
