/// <reference lib="dom" />
// The hello example's page in Chromium against the real server: an approval decided on the page
// ("Approved." / "Rejected.") shows on replay where it showed live, between the tool call and the
// reply that followed from it (the stored tool result carries the decision; see /history).
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

/** The reply's parts in order: tool chips, decided approvals and the reply text. */
function replyParts(w: Watched): Promise<string[]> {
  return w.page.evaluate(() => {
    const bubbles = document.querySelectorAll(".msg.assistant .bubble");
    const last = bubbles[bubbles.length - 1];
    return Array.from(last?.children ?? [], (el) => {
      if (el.classList.contains("tools"))
        return `tools: ${Array.from(el.querySelectorAll(".tool-name"), (n) => n.textContent).join(", ")}`;
      if (el.classList.contains("approval")) return `decision: ${el.textContent}`;
      if (el.classList.contains("content")) return "text";
      return el.className;
    });
  });
}

describe("a decided approval, replayed", () => {
  it.each([
    ["Approve", "Approved."],
    ["Reject", "Rejected."],
  ])(
    "%s: the decision shows after a reload where it showed live",
    async (button, shown) => {
      const w = await openPage(browser, `${server.url}/chat/index.html`);
      pages.push(w);
      const poll = { timeout: 10_000 }; // a loaded machine: the page, the run and the replay take time
      await expect.poll(() => w.page.locator("#model").textContent(), poll).not.toBe("");
      // Each case in a conversation of its own.
      await w.page.locator("#new-conv").click();
      await expect.poll(() => w.page.locator("#status").textContent(), poll).toBe("New conversation.");
      await w.page.locator("#input").fill("please send a note saying hi");
      await w.page.locator("#input").press("Enter");
      await expect.poll(() => w.page.locator(".approval-title").count(), poll).toBe(1);
      await w.page.getByRole("button", { name: button, exact: true }).click();
      await expect.poll(() => w.page.locator("#status").textContent(), poll).toBe("Reply finished.");
      const live = await replyParts(w);
      expect(live).toEqual(["tools: send_note", `decision: ${shown}`, "text"]);

      await w.page.reload();
      await expect.poll(() => w.page.locator(".approval.decided").count(), poll).toBe(1);
      expect(await replyParts(w)).toEqual(live);
      expect(await w.page.locator(".approval:not(.decided)").count()).toBe(0);
    },
    30_000,
  );
});
