/// <reference lib="dom" />
// A chat page whose entry names no icon (Chromium against the real server): the page carries its own
// icon, so the browser never asks for /favicon.ico and logs no 404; a client that asks anyway gets it.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type Watched } from "../../../packages/webui-page/test/browser/harness.js";
import { type RunningServer, startServer } from "../src/index.js";

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let w: Watched | undefined;
beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-favicon-"));
  mkdirSync(join(root, "agents"));
  mkdirSync(join(root, "gateways"));
  writeFileSync(
    join(root, "agents/bot.mjs"),
    `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
  );
  writeFileSync(join(root, "gateways/web.yaml"), "exposes: webui\npath: /chat\n");
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  server = await startServer(loaded.project, {
    port: 0,
    logger: pino({ level: "silent" }),
    interactive: false,
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await w?.context.close();
  await browser?.close();
  await server?.shutdown();
});

describe("a page with no icon configured", () => {
  it("shows an icon of its own and the browser asks for no /favicon.ico", async () => {
    w = await openPage(browser, "about:blank");
    const asked: string[] = [];
    w.context.on("request", (r) => asked.push(new URL(r.url()).pathname));
    await w.page.goto(`${server.url}/chat/index.html`);
    await expect.poll(() => w?.page.locator("#model").textContent()).not.toBe("");
    // Chromium asks for the default icon after the load, when the page declares none.
    await w.page.waitForTimeout(1500);
    expect(asked).not.toContain("/favicon.ico");
    expect(await w.page.locator('link[rel="icon"]').getAttribute("href")).toMatch(/^data:image\/svg\+xml,/);
  }, 30_000);

  it("answers /favicon.ico with the built-in icon for clients that ask all the same", async () => {
    const res = await fetch(`${server.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    const svg = await res.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>$/);
    // Chromium draws it as an image (what a browser does with a favicon).
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/favicon.ico`);
    const size = await page.evaluate(async (url) => {
      const img = new Image();
      img.src = url;
      await img.decode();
      return img.naturalWidth;
    }, `${server.url}/favicon.ico`);
    expect(size).toBeGreaterThan(0);
    await page.context().close();
  }, 30_000);
});
