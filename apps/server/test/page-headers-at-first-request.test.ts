// The chat page's security headers (CSP hashes of its inline blocks, the ETag: SHA-256 over the
// whole page) are computed at its first request, once, not while the service starts (#45.1).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { mountPage, type PageHeaders } from "../src/static-pages.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("the chat page's security headers", () => {
  it("are made at the page's first request, once, and sent with every answer", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentsvc-page-headers-"));
    const app = new Hono();
    const made: string[] = [];
    const headersFor = (html: string): PageHeaders => {
      made.push(html);
      return { "Content-Security-Policy": "default-src 'none'", ETag: '"page-etag"' };
    };
    const settled = mountPage(app, "/chat", dir, "<p>page</p>", headersFor, (error) => {
      throw error;
    });
    expect(made).toEqual([]);

    const first = await app.request("/chat/index.html");
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("<p>page</p>");
    expect(first.headers.get("content-security-policy")).toBe("default-src 'none'");
    expect(first.headers.get("etag")).toBe('"page-etag"');
    const again = await app.request("/chat/index.html", { headers: { "if-none-match": '"page-etag"' } });
    expect(again.status).toBe(304);
    expect(made).toEqual(["<p>page</p>"]);
    await settled();
  });
});
