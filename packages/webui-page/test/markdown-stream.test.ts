// A streamed reply rendered block by block must come out exactly as the whole reply rendered at
// once, wherever the tokens split it; only the still-growing block is re-parsed per update.
import { describe, expect, it } from "vitest";
import { appendedText, MarkdownStream, renderMarkdown, stableCut } from "../src/client/markdown.js";

/** Feeds `text` in the given pieces; returns the markup the page would hold, and the cuts made. */
function streamed(pieces: string[]): { html: string; finals: number } {
  const stream = new MarkdownStream();
  let done = "";
  let open = "";
  let text = "";
  let finals = 0;
  for (const p of pieces) {
    text += p;
    const u = stream.update(text);
    if (u.done) finals++;
    if (u.reset) done = "";
    done += u.done;
    open = u.open;
  }
  return { html: done + open, finals };
}

function split(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const REPLIES = [
  "Cats are **great**.\n\n- purr\n- nap\n\n```js\nconst snake_case = 1;\n```\n\nDone.",
  "Intro\n\n1. one\n\n2. two\n   more of two\n\nafter the list\n\n- a\n  - nested\n\n  - back\n\ntext",
  "```\ncode\n\nstill code\n\n```\n\nafter\n\n~~~~\n\n```\n\n~~~~\n\nend",
  "- item\n  ```\n\nnot a fence line\n\n```\nfence\n\n```\n\nx",
  "a\r\n\r\nb\r\rc\r\n\r\n- d\r\n\r\ne",
  "# Title\n\npara with `code\n\nspan` split\n\n> quote\n\n| a | b |",
  "<img src=x onerror=window.__pwned=1>\n\n<svg onload=alert(1)>\n\n`</code><img src=x onerror=alert(7)>`",
  "- a\n\n\n- b\n\n   - c\n\npara\n\n1) x\n\n2) y\n\nz",
];

describe("streamed markdown (MarkdownStream)", () => {
  it.each(REPLIES)("renders %j exactly as the whole reply, split into pieces of every size", (reply) => {
    for (const size of [1, 2, 3, 5, 7, 13, reply.length]) {
      expect(streamed(split(reply, size)).html, `pieces of ${size}`).toBe(renderMarkdown(reply));
    }
  });

  it("makes finished blocks final, so later tokens re-parse only the open block", () => {
    const reply = REPLIES[0]!;
    const { finals } = streamed(split(reply, 1));
    // Final: the paragraph (at the list) and the list (at the fence); the fence waits for the
    // complete line after it, "Done." has no line end yet.
    expect(finals).toBe(2);
    // Once the last line is complete, what stays open is the last block only.
    const stream = new MarkdownStream();
    expect(stream.update(`${reply}\n`).open).toBe("<p>Done.</p>");
  });

  it("starts over when the text does not go on from the last one", () => {
    const stream = new MarkdownStream();
    stream.update("first\n\nsecond\n");
    const u = stream.update("other\n\nthing");
    expect(u.reset).toBe(true);
    expect(u.done + u.open).toBe(renderMarkdown("other\n\nthing"));
  });

  it("does not cut inside a code fence, before a list item after a blank line, or at a bare \\r", () => {
    expect(stableCut("```\na\n\nb\n")).toBe(0);
    expect(stableCut("- a\n\n- b\n")).toBe(0);
    expect(stableCut("a\r")).toBe(0);
    expect(stableCut("a\n\nb\n")).toBe(3);
    // The line after the blank one is read only once it is complete.
    expect(stableCut("a\n\nb")).toBe(0);
  });

  it("matches the whole render for randomly assembled replies split at random places", () => {
    const parts = [
      "**",
      "*",
      "_",
      "`",
      "```",
      "~~~",
      "[",
      "](",
      ")",
      "<",
      ">",
      "\n",
      "\n\n",
      "\r",
      "- ",
      "  ",
      "1. ",
      "# ",
      "https://x.y",
      "<img onerror=x>",
      "text",
      " ",
    ];
    let seed = 11;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let n = 0; n < 2000; n++) {
      let src = "";
      for (let k = 0; k < 24; k++) src += parts[rand() % parts.length];
      const pieces: string[] = [];
      for (let i = 0; i < src.length; ) {
        const len = 1 + (rand() % 6);
        pieces.push(src.slice(i, i + len));
        i += len;
      }
      expect(streamed(pieces).html, JSON.stringify(src)).toBe(renderMarkdown(src));
    }
  });

  it("grows the open block in place only when words were added before its closing tags", () => {
    expect(appendedText("<p>Cats are</p>", "<p>Cats are great</p>")).toEqual({
      text: " great",
      closing: ["p"],
    });
    expect(appendedText("<pre><code>a = 1", "<pre><code>a = 1")).toBeNull();
    expect(appendedText("<ul><li>one</li><li>tw</li></ul>", "<ul><li>one</li><li>two</li></ul>")).toEqual({
      text: "o",
      closing: ["li", "ul"],
    });
    // The same markup: nothing to write.
    expect(appendedText("<p>a</p>", "<p>a</p>")).toEqual({ text: "", closing: ["p"] });
    // New markup, an escaped character, or a change before the end: the block is parsed again.
    expect(appendedText("<p>a</p>", "<p>a <strong>b</strong></p>")).toBeNull();
    expect(appendedText("<p>a</p>", "<p>a &lt;b</p>")).toBeNull();
    expect(appendedText("<p>**a</p>", "<p><strong>a</strong></p>")).toBeNull();
    expect(appendedText("<p>a</p>", "<p>a<br>b</p>")).toBeNull();
    expect(appendedText("<p>a b</p>", "<h1>a b</h1>")).toBeNull();
    expect(appendedText("", "<p>a</p>")).toBeNull();
  });
});
