import { describe, expect, it } from "vitest";
import { toWhatsApp } from "@agentsvc/markdown";
import { createGateway, MESSAGE_LIMIT } from "../src/index.js";

describe("markdown to WhatsApp markup", () => {
  it("turns bold, italic, strikethrough, headings and links into WhatsApp's own markers", () => {
    expect(toWhatsApp("**Done** and *maybe* or _maybe_ ~~not~~")).toBe("*Done* and _maybe_ or _maybe_ ~not~");
    expect(toWhatsApp("## Results\nSee [the docs](https://x.dev/d) or [https://x.dev](https://x.dev)")).toBe(
      "*Results*\nSee the docs (https://x.dev/d) or https://x.dev",
    );
  });

  it("leaves code, list bullets and lone asterisks alone", () => {
    const code = "```\nconst a = **b** * c;\n```";
    expect(toWhatsApp(`${code}\nuse \`**raw**\` here`)).toBe(`${code}\nuse \`**raw**\` here`);
    expect(toWhatsApp("* one\n* two\n2 * 3 = 6")).toBe("* one\n* two\n2 * 3 = 6");
  });
});

describe("whatsapp pieces", () => {
  const gateway = createGateway({ name: "whatsapp" } as never);

  it("cuts a long reply on the Markdown tree: every piece within the limit, bold closed in each", () => {
    const markdown = `**${"word ".repeat(1200).trim()}** and the end`;
    const pieces = gateway.chunk?.(markdown) ?? [];
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
      expect(piece.split("*").length % 2, piece.slice(-20)).toBe(1);
    }
    expect(pieces.join(" ").replace(/[*]/g, "")).toBe(`${"word ".repeat(1200).trim()} and the end`);
  });
});
