/// <reference lib="dom" />
// The chat page's blob: URLs (issue #46): a preview the page makes for a picture in the composer
// holds the file's bytes until it is revoked, so it goes when nothing shows it any more (the chip
// removed) and becomes the sent message's one URL for the file. Chromium against the real server
// (the hello example with a media block, SQLite in a temp dir, the demo model); live URLs counted
// by wrapping URL.createObjectURL/revokeObjectURL in the page.
import { describe, expect, it } from "vitest";
import { type Page, usePageRig } from "./page-rig.js";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAwAAi/v//zwAAHfAE/EgTX4EAAAAASUVORK5CYII=",
  "base64",
);

const rig = usePageRig(() => ({
  media: { maxBytes: 200 * 1024, types: ["image"], transcribe: false, unsupported: "reply" },
}));

/** Opens the page with the object-URL functions wrapped: `window.liveUrls` is what is not revoked. */
async function open(): Promise<Page> {
  const page = await rig.open();
  await page.evaluate(() => {
    const live = new Set<string>();
    (window as unknown as { liveUrls: Set<string> }).liveUrls = live;
    const create = URL.createObjectURL.bind(URL);
    const revoke = URL.revokeObjectURL.bind(URL);
    URL.createObjectURL = (o: Blob | MediaSource) => {
      const u = create(o);
      live.add(u);
      return u;
    };
    URL.revokeObjectURL = (u: string) => {
      live.delete(u);
      revoke(u);
    };
  });
  return page;
}

function liveUrls(page: Page): Promise<string[]> {
  return page.evaluate(() => [...(window as unknown as { liveUrls: Set<string> }).liveUrls]);
}

async function attach(page: Page, name: string): Promise<void> {
  await page.locator("#file-input").setInputFiles({ name, mimeType: "image/png", buffer: PNG });
  await expect.poll(() => page.locator("#file-tray .file-chip.pending").count()).toBe(0);
}

describe("chat page blob: URLs", () => {
  it("a picture removed from the composer leaves no live blob: URL", async () => {
    const page = await open();
    await attach(page, "gone.png");
    expect(await liveUrls(page)).toHaveLength(1);
    await page.locator("#file-tray .chip-x").click();
    expect(await page.locator("#file-tray .file-chip").count()).toBe(0);
    expect(await liveUrls(page)).toEqual([]);
  }, 60_000);

  it("a sent picture keeps one live blob: URL, the one its message shows, and the same bytes sent again make none", async () => {
    const page = await open();
    await attach(page, "sent.png");
    await page.locator("#input").fill("look");
    await page.locator("#send-btn").click();
    await expect
      .poll(() => page.locator("#status").textContent(), { timeout: 15_000 })
      .toBe("Reply finished.");
    const thumb = page.locator(".msg.user .thumb img").last();
    await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(2);
    const shown = await thumb.getAttribute("src");
    expect(await liveUrls(page)).toEqual([shown]);

    // The same picture again: its preview goes once sent, the page's URL for the file is reused.
    await attach(page, "again.png");
    await page.locator("#input").fill("again");
    await page.locator("#send-btn").click();
    await expect
      .poll(() => page.locator("#status").textContent(), { timeout: 15_000 })
      .toBe("Reply finished.");
    await expect.poll(() => page.locator(".msg.user .thumb img").count()).toBe(2);
    await expect.poll(() => page.locator(".msg.user .thumb img").last().getAttribute("src")).toBe(shown);
    expect(await liveUrls(page)).toEqual([shown]);
  }, 60_000);
});
