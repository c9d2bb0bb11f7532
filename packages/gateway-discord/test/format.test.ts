// Markdown Discord would show as raw text is rewritten; everything Discord renders passes as is.
import { describe, expect, it } from "vitest";
import { markdownToDiscord } from "../src/format.js";

describe("markdown -> discord", () => {
  it("leaves what Discord renders alone (bold, italics, code, lists, quotes, ### headings, masked links)", () => {
    const text = "# Title\n### Sub\n**bold** *it* ~~gone~~ `x`\n- a\n> quote\n[docs](https://example.com)";
    expect(markdownToDiscord(text)).toBe(text);
  });

  it("turns headings of level 4-6 into bold lines and images into links", () => {
    expect(
      markdownToDiscord("#### Notes ####\n![chart](https://x.test/c.png) and ![](https://x.test/d.png)"),
    ).toBe("**Notes**\n[chart](https://x.test/c.png) and https://x.test/d.png");
  });

  it("puts a table in a code block so its columns line up", () => {
    const table = "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |";
    expect(markdownToDiscord(`before\n${table}\nafter`)).toBe(`before\n\`\`\`\n${table}\n\`\`\`\nafter`);
  });

  it("never touches fenced code", () => {
    const code = "```md\n#### not a heading\n| a | b |\n|---|---|\n![x](y)\n```";
    expect(markdownToDiscord(code)).toBe(code);
  });
});
