/// <reference lib="dom" />
// Reloading the chat page while a reply streams (Chromium against the real server): the user's
// message stays, the page follows the running reply again, and once it is done a reload shows it.
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
const pages: Watched[] = [];

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-stream-reload-"));
  mkdirSync(join(root, "agents"));
  mkdirSync(join(root, "gateways"));
  // A slow demo model: its quoted reply takes several seconds, so a reload lands mid-reply.
  writeFileSync(
    join(root, "agents/bot.mjs"),
    `export default { kind: "agent", name: "bot", model: { provider: "demo", tokenDelayMs: 120 } };\n`,
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
  for (const w of pages) await w.context.close();
  await browser?.close();
  await server?.shutdown();
});

const userLines = (w: Watched) =>
  w.page.evaluate(() => Array.from(document.querySelectorAll(".msg.user .bubble"), (el) => el.textContent));
const lastReply = (w: Watched) =>
  w.page.evaluate(() => {
    const replies = document.querySelectorAll(".msg.assistant .content");
    return replies[replies.length - 1]?.textContent ?? "";
  });

describe("a reload while the reply streams", () => {
  it("keeps the conversation and the user's message and follows the reply to its end", async () => {
    const w = await openPage(browser, `${server.url}/chat/index.html`);
    pages.push(w);
    await expect.poll(() => w.page.locator("#model").textContent()).not.toBe("");
    const text = "tell me about the weather on the coast this weekend please";
    await w.page.locator("#input").fill(text);
    await w.page.locator("#input").press("Enter");
    await expect.poll(() => lastReply(w), { timeout: 10_000 }).toContain("You said");

    await w.page.reload();
    await expect.poll(() => w.page.locator("#model").textContent()).not.toBe("");
    await expect.poll(() => userLines(w)).toEqual([text]);
    expect(await w.page.locator("#welcome").isVisible()).toBe(false);
    // The rest of the reply arrives on the reloaded page, once.
    await expect.poll(() => lastReply(w), { timeout: 20_000 }).toContain("configure a real model");
    expect(await w.page.locator(".msg.assistant").count()).toBe(1);

    // Done: another reload shows the stored turn, the reply once.
    await w.page.reload();
    await expect.poll(() => userLines(w)).toEqual([text]);
    await expect.poll(() => lastReply(w)).toContain("configure a real model");
    expect(await w.page.locator(".msg.assistant").count()).toBe(1);
    expect(w.pageErrors).toEqual([]);
  }, 60_000);
});
