// The reply's Markdown rendered from its tree as Discord markdown: what Discord renders stays, what
// it would show raw is rewritten, and nothing the model typed becomes a mention.
import { describe, expect, it } from "vitest";
import { markdownToDiscord } from "../src/format.js";
import { createGateway, MESSAGE_LIMIT } from "../src/index.js";

describe("markdown -> discord", () => {
  it("leaves what Discord renders alone (bold, italics, code, lists, quotes, ### headings, masked links)", () => {
    const text =
      "# Title\n### Sub\n**bold** *it* ~~gone~~ `x`\n- a\n\n> quote\n\n[docs](https://example.com)";
    expect(markdownToDiscord(text)).toBe(text);
  });

  it("turns headings of level 4-6 into bold lines and images into links", () => {
    expect(
      markdownToDiscord("#### Notes ####\n![chart](https://x.test/c.png) and ![](https://x.test/d.png)"),
    ).toBe("**Notes**\n[chart](https://x.test/c.png) and https://x.test/d.png");
  });

  it("puts a table in a code block as aligned columns (Discord shows table pipes raw)", () => {
    const table = "| a | bb |\n|---|:-:|\n| 1 | 2 |\n| 333 | 4 |";
    expect(markdownToDiscord(`before\n\n${table}\n\nafter`)).toBe(
      "before\n\n```\na   | bb\n----+---\n1   | 2\n333 | 4\n```\n\nafter",
    );
  });

  it("never touches fenced code", () => {
    const code = "```md\n#### not a heading\n| a | b |\n|---|---|\n![x](y)\n```";
    expect(markdownToDiscord(code)).toBe(code);
  });

  it("shows mentions the model typed as text: @everyone, @here, <@id>, <#id> escaped, broken inside code", () => {
    expect(markdownToDiscord("ping @everyone and @here, <@123> in <#456>")).toBe(
      "ping \\@everyone and \\@here, \\<\\@123\\> in \\<\\#456\\>",
    );
    expect(markdownToDiscord("`@everyone`")).toBe("`@\u200beveryone`");
  });

  it("escapes markup characters the model wrote as text, not an underscore inside a word", () => {
    expect(markdownToDiscord("2\\*3\\*4 and snake_case, \\_x\\_")).toBe("2\\*3\\*4 and snake_case, \\_x\\_");
  });

  it("keeps a link target with balanced parentheses whole (percent-encoded, as Discord ends a target at a ')')", () => {
    expect(markdownToDiscord("see [Mercury](https://en.wikipedia.org/wiki/Mercury_(planet)) now")).toBe(
      "see [Mercury](https://en.wikipedia.org/wiki/Mercury_%28planet%29) now",
    );
  });
});

describe("discord pieces", () => {
  const gateway = createGateway({ name: "discord", botTokenEnvVar: "T" } as never);

  it("cuts a long reply on the tree: every piece within 2 000 characters with balanced fences and bold", () => {
    const code = Array.from({ length: 120 }, (_, i) => `line ${i} of the code`).join("\n");
    const markdown = `**${"word ".repeat(500).trim()}**\n\n\`\`\`ts\n${code}\n\`\`\``;
    const pieces = gateway.chunk?.(markdown) ?? [];
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
      expect((piece.match(/```/g) ?? []).length % 2).toBe(0);
      expect((piece.match(/\*\*/g) ?? []).length % 2).toBe(0);
    }
    expect(pieces.filter((p) => p.startsWith("```ts\n")).length).toBeGreaterThan(1);
  });
});
