// Signed file URLs: a signed URL serves the file (an image inline, anything else as a download,
// never sniffed), and a changed name, blob, expiry or signature, or an expired URL, gets 404.
import { createHash } from "node:crypto";
import type { SessionBlobs } from "@agentsvc/adapter-kit";
import { describe, expect, it } from "vitest";
import { fileUrls } from "../src/index.js";

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(20)]);
const HTML = Buffer.from("<html><script>alert(1)</script></html>");

function blobsOf(...files: [Buffer, string][]): SessionBlobs {
  const map = new Map(files.map(([b, t]) => [createHash("sha256").update(b).digest("hex"), { b, t }]));
  const none = async () => {
    throw new Error("not used");
  };
  return {
    read: async (sha) => map.get(sha)?.b,
    info: async (sha) => {
      const f = map.get(sha);
      return f ? { sha256: sha, size: f.b.length, contentType: f.t } : undefined;
    },
    put: none,
    putFile: none,
    download: none,
    recordDownload: none,
    prune: none,
  };
}
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("signed file URLs", () => {
  it("serves a signed image inline and any other file as a download with nosniff and a sandbox", async () => {
    const urls = fileUrls({ baseUrl: "https://bot.example.com/", secret: "s".repeat(32) });
    const blobs = blobsOf([PNG, "image/png"], [HTML, "text/html"]);
    const png = await urls.serve(new URL(urls.sign({ blob: sha(PNG), name: "chart.png" })), blobs);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("content-disposition")).toBe("inline; filename*=UTF-8''chart.png");
    expect(Buffer.from(await png.arrayBuffer()).equals(PNG)).toBe(true);
    const url = urls.sign({ blob: sha(HTML), name: "page one.html" });
    expect(url.startsWith("https://bot.example.com/files/")).toBe(true);
    const html = await urls.serve(new URL(url), blobs);
    expect(html.headers.get("content-type")).toBe("application/octet-stream");
    expect(html.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''page%20one.html");
    expect(html.headers.get("x-content-type-options")).toBe("nosniff");
    expect(html.headers.get("content-security-policy")).toContain("sandbox");
  });

  it("answers 404 to a tampered, foreign-secret or expired URL", async () => {
    let now = 1_000_000;
    const urls = fileUrls({
      baseUrl: "https://b.example",
      secret: "k".repeat(32),
      ttlMs: 60_000,
      now: () => now,
    });
    const other = fileUrls({ baseUrl: "https://b.example", secret: "x".repeat(32), now: () => now });
    const blobs = blobsOf([PNG, "image/png"]);
    const good = new URL(urls.sign({ blob: sha(PNG), name: "a.png" }));
    const renamed = new URL(good.toString().replace("/a.png", "/b.png"));
    const later = new URL(good.toString().replace(/exp=\d+/, `exp=${now + 10 * 60_000}`));
    for (const u of [renamed, later, new URL(other.sign({ blob: sha(PNG), name: "a.png" }))]) {
      expect((await urls.serve(u, blobs)).status).toBe(404);
    }
    expect((await urls.serve(good, blobs)).status).toBe(200);
    now += 60_001;
    expect((await urls.serve(good, blobs)).status).toBe(404);
  });
});
