/// <reference lib="dom" />
// New on the chat page (Chromium against the real server): pressing it on a conversation that is
// still empty keeps that one, so three presses leave one conversation, not three empty ones.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type Watched } from "../../../packages/webui-page/test/browser/harness.js";
import { type RunningServer, startServer } from "../src/index.js";
import { helloProject } from "./hello-server.js";

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let w: Watched | undefined;
beforeAll(async () => {
  server = await startServer(await helloProject(), { port: 0, logger: pino({ level: "silent" }) });
  browser = await launchBrowser();
});
afterAll(async () => {
  await w?.context.close();
  await browser?.close();
  await server?.shutdown();
});

const listed = (page: Watched["page"]) =>
  page.evaluate(async () => {
    const r = await fetch("/chat/api/conversations").then((res) => res.json());
    return (r as { conversations: unknown[] }).conversations.length;
  });

describe("New on an empty conversation", () => {
  it("three presses leave one conversation", async () => {
    w = await openPage(browser, `${server.url}/chat/index.html`);
    const page = w.page;
    await expect.poll(() => page.locator("#model").textContent()).not.toBe("");
    for (let i = 0; i < 3; i++) {
      await page.locator("#new-conv").click();
      await expect.poll(() => page.locator("#status").textContent()).toBe("New conversation.");
      await page.evaluate(() => {
        const s = document.querySelector("#status");
        if (s) s.textContent = "";
      });
    }
    expect(await listed(page)).toBeLessThanOrEqual(1);
    expect(await page.locator(".conv:not(.conv-more-row)").count()).toBeLessThanOrEqual(1);
  }, 40_000);
});
