// The chat page and its large reads over real HTTP, read as raw bytes (fetch would undo the coding):
// the page goes out brotli- or gzip-compressed as Accept-Encoding allows, each coding with its own
// ETag; /history and /conversations are gzip-compressed for a client that accepts it.
import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/index.js";
import { startHello } from "./hello-server.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startHello();
});
afterAll(async () => {
  await server?.shutdown();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function rawGet(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (part: Buffer) => parts.push(part));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const PAGE = "/chat/index.html";

describe("the chat page's content codings", () => {
  it("sends brotli, gzip or the plain page as Accept-Encoding allows, the same page each time", async () => {
    const plain = await rawGet(PAGE);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const html = plain.body.toString("utf8");
    expect(html).toContain("</html>");

    const br = await rawGet(PAGE, { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body).toString("utf8")).toBe(html);
    expect(br.body.length).toBeLessThan(html.length / 2);

    const gz = await rawGet(PAGE, { "accept-encoding": "br;q=0, gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).toString("utf8")).toBe(html);

    for (const res of [plain, br, gz]) {
      expect(res.headers.vary).toContain("Accept-Encoding");
      expect(res.headers["content-security-policy"]).toBe(plain.headers["content-security-policy"]);
      expect(res.headers["content-type"]).toBe("text/html; charset=UTF-8");
    }
    expect(new Set([plain, br, gz].map((r) => r.headers.etag)).size).toBe(3);
  });

  it("takes the coding with the highest q, a wildcard, and none for identity or q=0", async () => {
    const coding = async (accept: string) =>
      (await rawGet(PAGE, { "accept-encoding": accept })).headers["content-encoding"];
    expect(await coding("gzip;q=1, br;q=0.5")).toBe("gzip");
    expect(await coding("br;q=0.2, gzip;q=0.9")).toBe("gzip");
    expect(await coding("*")).toBe("br");
    expect(await coding("*;q=0.5, br;q=0")).toBe("gzip");
    expect(await coding("identity")).toBeUndefined();
    expect(await coding("gzip;q=0, br;q=0")).toBeUndefined();
  });

  it("revalidates each coding by its own ETag: a cached brotli copy is not mistaken for the gzip one", async () => {
    const br = await rawGet(PAGE, { "accept-encoding": "br" });
    const etag = String(br.headers.etag);
    const again = await rawGet(PAGE, { "accept-encoding": "br", "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(etag);
    expect(again.body.length).toBe(0);
    const other = await rawGet(PAGE, { "accept-encoding": "gzip", "if-none-match": etag });
    expect(other.status).toBe(200);
    expect(other.headers["content-encoding"]).toBe("gzip");
  });
});

describe("the page's large reads", () => {
  it("/history and /conversations go out gzip-compressed to a client that accepts it, plain otherwise", async () => {
    const input = `remember this ${"long line of text ".repeat(120)}`;
    const turn = await fetch(`${server.url}/chat/api/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input, conversationId: "compressed" }),
    });
    expect(turn.status).toBe(200);
    for (const path of ["/chat/api/history?conversationId=compressed", "/chat/api/conversations"]) {
      const plain = await rawGet(path);
      expect(plain.headers["content-encoding"]).toBeUndefined();
      const gz = await rawGet(path, { "accept-encoding": "gzip, deflate, br" });
      expect(gz.headers["content-encoding"]).toBe("gzip");
      expect(JSON.parse(gunzipSync(gz.body).toString("utf8"))).toEqual(
        JSON.parse(plain.body.toString("utf8")),
      );
    }
    const history = JSON.parse((await rawGet("/chat/api/history?conversationId=compressed")).body.toString());
    expect(JSON.stringify(history)).toContain("long line of text");
  });
});
