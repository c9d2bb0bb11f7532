/// <reference lib="dom" />
// The chat page when the service cannot be reached for a while (Chromium against the real server,
// its API requests failed by the browser): the notice shows, and clears itself once the service
// answers again, with no action from the user.
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

describe("the could-not-reach notice", () => {
  it("clears itself when the service answers again", async () => {
    w = await openPage(browser, `${server.url}/chat/index.html`);
    const page = w.page;
    await expect.poll(() => page.locator("#model").textContent()).not.toBe("");
    await page.route("**/chat/api/**", (route) => route.abort("connectionrefused"));
    await page.locator("#input").fill("hello while offline");
    await page.locator("#input").press("Enter");
    await expect
      .poll(() => page.locator("#status").textContent())
      .toContain("Could not reach the chat service");
    await page.unroute("**/chat/api/**");
    await expect
      .poll(() => page.locator("#status").textContent(), { timeout: 15_000 })
      .not.toContain("Could not reach");
  }, 40_000);

  it("a page opened while the service is down loads once it answers", async () => {
    const other = await openPage(browser, "about:blank");
    try {
      await other.page.route("**/chat/api/**", (route) => route.abort("connectionrefused"));
      await other.page.goto(`${server.url}/chat/index.html`);
      await expect
        .poll(() => other.page.locator("#status").textContent())
        .toContain("Could not reach the chat service");
      await other.page.unroute("**/chat/api/**");
      await expect.poll(() => other.page.locator("#model").textContent(), { timeout: 15_000 }).not.toBe("");
      await expect.poll(() => other.page.locator("#status").textContent()).not.toContain("Could not reach");
    } finally {
      await other.context.close();
    }
  }, 40_000);
});
