import { describe, expect, it } from "vitest";
import { toWhatsApp } from "../src/format.js";

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
