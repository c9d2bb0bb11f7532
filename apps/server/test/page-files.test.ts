/// <reference lib="dom" />
// Files on the chat page (issue #46), Chromium against the real server (the hello example with a
// media block on its webui entry, SQLite in a temp dir, the demo model): attach by button, paste
// and drop; refused locally with a clear line; pictures inline and enlarged; history after reload.
// One browser for the file; each test opens its own context.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";
import { type Page, usePageRig } from "./page-rig.js";

// A 2x2 PNG: the thumbnail's natural size proves the bytes came back and decoded.
const PNG = [
  ...Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAwAAi/v//zwAAHfAE/EgTX4EAAAAASUVORK5CYII=",
    "base64",
  ),
];
const MAX_BYTES = 200 * 1024;
// A name that would be markup if it were ever rendered as HTML.
const HOSTILE = "<img src=x onerror=alert(1)>.png";

const rig = usePageRig(() => ({
  media: { maxBytes: MAX_BYTES, types: ["image", "document"], transcribe: false, unsupported: "reply" },
}));
const open = () => rig.open();

/** A DataTransfer in the page holding one file, for paste and drop events. */
function filesTransfer(page: Page, name: string, type: string, bytes: number[]) {
  return page.evaluateHandle(
    ([n, t, b]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(b)], n, { type: t }));
      return dt;
    },
    [name, type, bytes] as const,
  );
}

const pdfBytes = [...Buffer.from("%PDF-1.4\n% a small document\ntrailer << >>\n%%EOF\n")];

async function send(page: Page, text: string): Promise<void> {
  // Uploads finish first: the chip loses its progress bar.
  await expect.poll(() => page.locator("#file-tray .file-chip.pending").count()).toBe(0);
  await page.locator("#input").fill(text);
  await page.locator("#send-btn").click();
  await expect.poll(() => page.locator("#status").textContent(), { timeout: 15_000 }).toBe("Reply finished.");
}

describe("chat page files", () => {
  it("a picture attached with the button shows in the sent message, its name as text, and opens large on click", async () => {
    const page = await open();
    // The limits are shown before anything is uploaded.
    expect(await page.locator("#attach-btn").getAttribute("title")).toBe(
      "Attach pictures, documents up to 200 KB",
    );
    await page
      .locator("#file-input")
      .setInputFiles({ name: HOSTILE, mimeType: "image/png", buffer: Buffer.from(PNG) });
    const chip = page.locator("#file-tray .file-chip");
    await expect.poll(() => chip.locator(".file-name").textContent()).toBe(HOSTILE);
    await send(page, "what is this?");

    const thumb = page.locator(".msg.user .thumb img").last();
    await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(2);
    expect(await thumb.getAttribute("alt")).toBe(HOSTILE);
    // The name never became an element: the only images are the thumbnail and the lightbox's.
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    // The model was told about the file (the demo model echoes what it read).
    await expect
      .poll(() => page.locator(".msg.assistant .content").last().textContent())
      .toContain(`[The user attached an image "${HOSTILE}" (image/png, ${PNG.length} bytes)`);

    await page.locator(".msg.user .thumb").last().click();
    const big = page.locator("#lightbox img");
    await expect.poll(() => page.locator("#lightbox").evaluate((d: HTMLDialogElement) => d.open)).toBe(true);
    await expect.poll(() => big.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(2);
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("#lightbox").evaluate((d: HTMLDialogElement) => d.open)).toBe(false);
  }, 60_000);

  it("a pasted file and a dropped picture are attached and sent; the document shows as a chip with name and size", async () => {
    const page = await open();
    // Cells copied from a spreadsheet carry their text and a picture of it: the text is pasted
    // (the event is left to the browser) and nothing is attached.
    const cells = await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.setData("text/plain", "a\tb");
      dt.items.add(new File([new Uint8Array([137, 80, 78, 71])], "cells.png", { type: "image/png" }));
      const event = new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true });
      document.querySelector("#input")?.dispatchEvent(event);
      return event.defaultPrevented;
    });
    expect(cells).toBe(false);
    expect(await page.locator("#file-tray .file-chip").count()).toBe(0);
    // A paste event as the browser fires it for a copied file (ClipboardEvent with clipboardData).
    const pasted = await filesTransfer(page, "paper.pdf", "application/pdf", pdfBytes);
    await page.evaluate((dt) => {
      const event = new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true });
      document.querySelector("#input")?.dispatchEvent(event);
    }, pasted);
    const dropped = await filesTransfer(page, "dropped.png", "image/png", PNG);
    await page.locator("#app").dispatchEvent("dragover", { dataTransfer: dropped });
    expect(await page.locator("#app").getAttribute("data-hint")).toBe(
      "Drop pictures, documents up to 200 KB",
    );
    await page.locator("#app").dispatchEvent("drop", { dataTransfer: dropped });
    await expect
      .poll(() => page.locator("#file-tray .file-name").allTextContents())
      .toEqual(["paper.pdf", "dropped.png"]);
    await send(page, "two files");
    const user = page.locator(".msg.user").last();
    expect(await user.locator(".file-chip .file-name").textContent()).toBe("paper.pdf");
    expect(await user.locator(".file-chip .file-size").textContent()).toBe(`${pdfBytes.length} B`);
    await expect
      .poll(() => user.locator(".thumb img").evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBe(2);
    expect(await page.locator("#file-tray").isHidden()).toBe(true);
  }, 60_000);

  it("shows a running upload's progress bar, and a message sent meanwhile waits for the upload and carries the file", async () => {
    const page = await open();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/chat/api/files", async (route) => {
      await held;
      await route.continue();
    });
    await page
      .locator("#file-input")
      .setInputFiles({ name: "slow.png", mimeType: "image/png", buffer: Buffer.from(PNG) });
    const chip = page.locator("#file-tray .file-chip");
    await expect.poll(() => chip.locator("progress").count()).toBe(1);
    expect(await chip.getAttribute("class")).toContain("pending");
    // The page opens the last conversation (earlier tests' messages) and replays its history after
    // the model's name shows: count the messages on screen only once that history is.
    await expect
      .poll(() => page.evaluate(() => performance.getEntriesByName("agentsvc:history-replayed").length))
      .toBe(1);
    const before = await page.locator(".msg.user").count();
    await page.locator("#input").fill("with the slow one");
    await page.locator("#send-btn").click();
    // The upload is held, so the message cannot have gone yet.
    expect(await page.locator(".msg.user").count()).toBe(before);
    release();
    await expect
      .poll(() => page.locator("#status").textContent(), { timeout: 15_000 })
      .toBe("Reply finished.");
    const user = page.locator(".msg.user").last();
    expect(await user.locator(".bubble").evaluate((b) => b.firstChild?.textContent)).toBe(
      "with the slow one",
    );
    await expect
      .poll(() => user.locator(".thumb img").evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBe(2);
  }, 60_000);

  it("refuses a file over the limit and one of a kind the chat does not take, before uploading, with a clear line", async () => {
    const page = await open();
    let uploads = 0;
    page.on("request", (r) => {
      if (r.url().endsWith("/api/files") && r.method() === "POST") uploads++;
    });
    await page
      .locator("#file-input")
      .setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: Buffer.alloc(MAX_BYTES + 1) });
    await expect
      .poll(() => page.locator("#status").textContent())
      .toBe('"huge.png" is too large (200 KB); the limit is 200 KB.');
    await page
      .locator("#file-input")
      .setInputFiles({ name: "clip.mp4", mimeType: "video/mp4", buffer: Buffer.alloc(10) });
    await expect
      .poll(() => page.locator("#status").textContent())
      .toBe('"clip.mp4" was not attached: this chat takes pictures, documents up to 200 KB.');
    expect(await page.locator("#file-tray .file-chip").count()).toBe(0);
    expect(uploads).toBe(0);
  }, 30_000);

  it("a reload replays the conversation's files from /history: the picture inline, the document as a chip", async () => {
    const page = await open();
    await page.locator("#file-input").setInputFiles([
      { name: "again.png", mimeType: "image/png", buffer: Buffer.from(PNG) },
      { name: "report.pdf", mimeType: "application/pdf", buffer: Buffer.from(pdfBytes) },
    ]);
    await send(page, "keep these");
    await page.reload();
    await expect.poll(() => page.locator(".msg.user").count()).toBeGreaterThan(0);
    const user = page.locator(".msg.user", { hasText: "keep these" }).last();
    await expect
      .poll(() => user.locator(".thumb img").evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBe(2);
    expect(await user.locator(".thumb img").getAttribute("src")).toMatch(/^blob:/);
    // Opening another conversation and coming back replays it without fetching the picture again.
    let pictureGets = 0;
    page.on("request", (r) => {
      if (r.method() === "GET" && r.url().endsWith("/again.png")) pictureGets++;
    });
    const title = (await page.locator('.conv[aria-current="true"] .conv-open').textContent()) ?? "";
    await page.locator("#new-conv").click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("New conversation.");
    await page.locator(".conv-open", { hasText: title }).first().click();
    await expect
      .poll(() => user.locator(".thumb img").evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBe(2);
    expect(pictureGets).toBe(0);
    expect(await user.locator(".file-chip .file-name").textContent()).toBe("report.pdf");
    // The chip downloads the file (served as an attachment, with the page's own credentials).
    const download = page.waitForEvent("download");
    await user.locator(".file-chip").click();
    expect((await download).suggestedFilename()).toBe("report.pdf");
  }, 60_000);

  it("a reload while the reply streams shows the sent message's files again and follows the reply to its end", async () => {
    // A slow demo model: its reply takes seconds, so the reload lands mid-reply.
    const root = mkdtempSync(join(tmpdir(), "agentsvc-page-files-"));
    mkdirSync(join(root, "agents"));
    mkdirSync(join(root, "gateways"));
    writeFileSync(
      join(root, "agents/bot.mjs"),
      `export default { kind: "agent", name: "bot", model: { provider: "demo", tokenDelayMs: 120 } };\n`,
    );
    writeFileSync(join(root, "gateways/web.yaml"), "exposes: webui\npath: /chat\nmedia:\n  types: [image]\n");
    const loaded = await loadProject(root);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const slow = await startServer(loaded.project, {
      port: 0,
      logger: pino({ level: "silent" }),
      interactive: false,
    });
    try {
      const page = await rig.open(`${slow.url}/chat/index.html`);
      await page
        .locator("#file-input")
        .setInputFiles({ name: "mid.png", mimeType: "image/png", buffer: Buffer.from(PNG) });
      await expect.poll(() => page.locator("#file-tray .file-chip.pending").count()).toBe(0);
      await expect.poll(() => page.locator("#file-tray .file-chip").count()).toBe(1);
      await page.locator("#input").fill("during the reply");
      await page.locator("#send-btn").click();
      const lastReply = () => page.locator(".msg.assistant .content").last().textContent();
      await expect.poll(lastReply, { timeout: 10_000 }).toContain("You said");

      await page.reload();
      const user = page.locator(".msg.user");
      await expect.poll(() => user.count()).toBe(1);
      // The page's own blob: URL died with the reload: the picture comes from the server now.
      await expect
        .poll(() => user.locator(".thumb img").evaluate((img: HTMLImageElement) => img.naturalWidth))
        .toBe(2);
      await expect.poll(lastReply, { timeout: 30_000 }).toContain("configure a real model");
      expect(await page.locator(".msg.assistant").count()).toBe(1);
    } finally {
      await rig.close();
      await slow.shutdown();
    }
  }, 90_000);
});
