/// <reference lib="dom" />
// The streaming bubble in Chromium: after every write the reply's nodes are exactly what parsing
// the whole text so far would give, also when a write only appended words to the open block's
// last text node instead of replacing the block.
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../src/client/markdown.js";
import type { PageEntry } from "../src/entry.js";
import { pageSuite } from "./browser/suite.js";
import { PROSE } from "./fake-api/scripts.js";

const ENTRY: PageEntry = { path: "/chat", title: "Helper Desk", welcome: "Hello! Ask me about cats." };
const suite = pageSuite(ENTRY);

describe("streaming render", () => {
  it("holds, after every write, the nodes of the whole text so far, growing words in place", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    // Every text the reply can have after a token (the fake sends PROSE word by word).
    const tokens = PROSE.match(/\S+\s*|\s+/g) ?? [];
    const prefixes = tokens.map((_, i) => renderMarkdown(tokens.slice(0, i + 1).join("")));
    await w.page.evaluate(() => {
      const w = window as unknown as { __writes: string[]; __grown: number };
      w.__writes = [];
      w.__grown = 0;
      const messages = document.getElementById("messages")!;
      // Delivered after each write (a microtask after the frame's callback), so every snapshot is
      // one whole write of the streaming bubble.
      new MutationObserver((records) => {
        const content = messages.querySelector(".msg.assistant:last-child .content");
        if (!content) return;
        if (records.some((r) => r.type === "characterData")) w.__grown++;
        w.__writes.push(content.innerHTML);
      }).observe(messages, { childList: true, characterData: true, subtree: true });
    });
    await suite.send(w, "prose please");
    // The whole stream (about 120 tokens, each write snapshotted): a starved run took 4.7-8.6 s to
    // finish it, past the package's 5 s poll bound (4 niced copies at once, load 35).
    await expect
      .poll(() => w.page.locator("#status").textContent(), { timeout: 20_000 })
      .toBe("Reply finished.");
    const { writes, unexpected, grown } = await w.page.evaluate((expected) => {
      // Markup as Chromium serializes it once parsed, to compare with the bubble's innerHTML.
      const parsed = new Set(
        expected.map((html) => {
          const t = document.createElement("template");
          t.innerHTML = html;
          return t.innerHTML;
        }),
      );
      const w = window as unknown as { __writes: string[]; __grown: number };
      const seen = w.__writes.filter((h) => h !== "");
      return { writes: seen.length, unexpected: seen.filter((h) => !parsed.has(h)), grown: w.__grown };
    }, prefixes);
    expect(unexpected).toEqual([]);
    expect(writes).toBeGreaterThan(5);
    // Some writes only appended words (a characterData change), so that path is the one checked.
    expect(grown).toBeGreaterThan(0);
    const final = await w.page.locator(".msg.assistant .content").last().innerHTML();
    expect(final).toBe(
      await w.page.evaluate((html) => {
        const t = document.createElement("template");
        t.innerHTML = html;
        return t.innerHTML;
      }, renderMarkdown(PROSE)),
    );
  });
});
