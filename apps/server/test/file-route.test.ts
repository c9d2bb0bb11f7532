// The signed-file route over real HTTP on 127.0.0.1 and a real SQLite blob store: a URL the
// outbox signed serves the stored bytes; without a public base URL nothing is signed.
import type { AddressInfo } from "node:net";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { FILE_URL_SECRET_ENV, fileUrlsFor, mountFileRoute } from "../src/file-route.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe("signed file route", () => {
  it("serves a file signed by another instance with the same secret, as a download unless a safe image", async () => {
    const db = ChatDb.open({ appRoot: mkdtempSync(join(tmpdir(), "file-route-")), path: "data/chat.db" });
    closers.push(async () => db.close());
    const pdf = await db.blobs.put(Buffer.from("%PDF-1.7\nhello"), "application/pdf");
    const app = new Hono();
    const env = { [FILE_URL_SECRET_ENV]: "s".repeat(40) };
    const base = await new Promise<string>((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
        closers.push(() => new Promise((r) => server.close(() => r())));
        resolve(`http://127.0.0.1:${info.port}`);
      });
    });
    mountFileRoute(app, fileUrlsFor(base, env)!, db.blobs);
    const signer = fileUrlsFor(base, env)!; // another instance
    const res = await fetch(signer.sign({ blob: pdf.sha256, name: "report.pdf" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''report.pdf");
    expect(await res.text()).toBe("%PDF-1.7\nhello");
    const foreign = fileUrlsFor(base, {})!.sign({ blob: pdf.sha256, name: "report.pdf" });
    expect((await fetch(foreign)).status).toBe(404);
  });

  it("signs nothing without a public base URL", () => {
    expect(fileUrlsFor(undefined, { [FILE_URL_SECRET_ENV]: "x".repeat(40) })).toBeUndefined();
  });
});
