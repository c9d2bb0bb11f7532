import { describe, expect, it } from "vitest";
import { toPlainText } from "@agentsvc/markdown";
import { createGateway, MESSAGE_LIMIT } from "../src/index.js";

describe("markdown to plain SMS text", () => {
  it("drops emphasis and heading marks, keeps words, and spells links out", () => {
    expect(toPlainText("# Status\n**Done**, *mostly* ~~late~~. See [docs](https://x.dev).")).toBe(
      "Status\nDone, mostly late. See docs (https://x.dev).",
    );
  });

  it("keeps the content of code without its fences and backticks", () => {
    expect(toPlainText("Run `npm test` then:\n```sh\nnpm run **build**\n```")).toBe(
      "Run npm test then:\nnpm run **build**",
    );
    expect(toPlainText("snake_case_name and 2 * 3")).toBe("snake_case_name and 2 * 3");
  });
});

describe("sms pieces", () => {
  const gateway = createGateway({ name: "twilio" } as never);

  it("cuts a long reply on the Markdown tree: every piece within the limit, bold closed in each", () => {
    const markdown = `**${"word ".repeat(1200).trim()}** and the end`;
    const pieces = gateway.chunk?.(markdown) ?? [];
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
      expect(piece).not.toContain("*");
    }
    expect(pieces.join(" ").replace(/[*]/g, "")).toBe(`${"word ".repeat(1200).trim()} and the end`);
  });
});
