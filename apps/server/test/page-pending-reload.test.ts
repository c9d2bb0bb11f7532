/// <reference lib="dom" />
// The hello example's page in Chromium against the real server: a turn waiting for an approval
// survives a reload (and another device) with its message and tool call, and the demo model's
// tools are reached by the words the welcome suggests.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type Watched } from "../../../packages/webui-page/test/browser/harness.js";
import { type RunningServer, startServer } from "../src/index.js";
import { helloProject } from "./hello-server.js";

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
const pages: Watched[] = [];
beforeAll(async () => {
  server = await startServer(await helloProject(), { port: 0, logger: pino({ level: "silent" }) });
  browser = await launchBrowser();
});
afterAll(async () => {
  for (const w of pages) await w.context.close();
  await browser?.close();
  await server?.shutdown();
});

async function open(): Promise<Watched> {
  const w = await openPage(browser, `${server.url}/chat/index.html`);
  pages.push(w);
  await expect.poll(() => w.page.locator("#model").textContent()).not.toBe("");
  return w;
}

/** What the transcript shows, in order: user lines, tool chips and approval cards. */
function transcript(w: Watched): Promise<string[]> {
  return w.page.evaluate(() =>
    Array.from(
      document.querySelectorAll(
        ".msg.user .bubble, .msg.assistant .tool-name, .msg.assistant .approval-title",
      ),
      (el) => `${el.className.includes("bubble") ? "user" : el.className}: ${el.textContent}`,
    ),
  );
}

describe("a turn waiting for approval, reloaded", () => {
  it("shows the user's message and the tool call above the card, after a reload and on another device", async () => {
    const w = await open();
    await w.page.locator("#input").fill("please send a note saying hi");
    await w.page.locator("#input").press("Enter");
    await expect.poll(() => w.page.locator(".approval-title").count()).toBe(1);
    const expected = [
      "user: please send a note saying hi",
      "tool-name: send_note",
      "approval-title: Approval needed: send_note",
    ];
    expect(await transcript(w)).toEqual(expected);

    await w.page.reload();
    await expect.poll(() => w.page.locator(".approval-title").count()).toBe(1);
    expect(await transcript(w)).toEqual(expected);
    // One reply holds both the tool call and its card (no lone card).
    expect(await w.page.locator(".msg.assistant").count()).toBe(1);

    // Another browser, no local storage: the server's history alone brings the card back.
    const other = await open();
    await expect.poll(() => other.page.locator(".approval-title").count()).toBe(1);
    expect(await transcript(other)).toEqual(expected);

    await other.page.getByRole("button", { name: "Approve", exact: true }).click();
    await expect
      .poll(() => other.page.locator(".msg.assistant .content").last().textContent())
      .toContain("The tool send_note returned");
  });
});
