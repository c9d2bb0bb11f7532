// The streamed preview shows the reply's first piece while the reply grows. It cuts only a window at
// the start of the text, so the work per update follows the first piece, not the whole reply; the
// piece shown must be the one cutting the whole text gives.
import { chunkText } from "@agentsvc/adapter-kit";
import { discordPieces, slackPieces, telegramPieces, whatsAppPieces } from "@agentsvc/markdown";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Gateway } from "@agentsvc/session-core";
import { firstPiece } from "@agentsvc/session-core";
import { propertyTimeout, runs } from "./runs.js";

type Chunker = (markdown: string, limit: number) => string[];

/** A gateway as the preview sees it: its limit and, for the built-in ones, its chunk. */
function gatewayOf(limit: number, chunk?: Chunker, seen?: number[]): Gateway {
  return {
    messageLimit: limit,
    ...(chunk
      ? {
          chunk: (text: string) => {
            seen?.push(text.length);
            return chunk(text, limit);
          },
        }
      : {}),
  } as unknown as Gateway;
}

const word = fc.constantFrom(
  "alpha",
  "beta",
  "2*3",
  "snake_case",
  "😀",
  "é",
  "(p)",
  "a-very-long-word-indeed",
);
const line = fc.array(word, { minLength: 1, maxLength: 14 }).map((w) => w.join(" "));
const inline = fc.oneof(
  line,
  line.map((t) => `**${t}**`),
  line.map((t) => `*${t}* and \`code\``),
  fc.constant("[Mercury](https://en.wikipedia.org/wiki/Mercury_(planet))"),
);
const paragraph = fc.array(inline, { minLength: 1, maxLength: 6 }).map((p) => p.join(" "));
const block = fc.oneof(
  paragraph,
  inline.map((t) => `## ${t}`),
  inline.map((t) => `> ${t}`),
  fc
    .tuple(fc.array(inline, { minLength: 1, maxLength: 8 }), fc.boolean())
    .map(([items, loose]) => items.map((t) => `- ${t}`).join(loose ? "\n\n" : "\n")),
  fc
    .tuple(fc.constantFrom("", "ts"), fc.array(line, { maxLength: 12 }))
    .map(([lang, lines]) => `\`\`\`${lang}\n${lines.join("\n")}\n\`\`\``),
);
const markdown = fc.array(block, { minLength: 1, maxLength: 20 }).map((b) => b.join("\n\n"));

// Runs per platform: Slack's pieces are measured in two renderings, so fewer texts.
const platforms: [string, Chunker | undefined, number][] = [
  ["no chunk of its own (chunkText)", undefined, 150],
  ["Telegram", telegramPieces, 150],
  ["Discord", discordPieces, 150],
  ["Slack", slackPieces, 25],
  ["WhatsApp", whatsAppPieces, 150],
];

// Each property cuts a few thousand texts: on a loaded machine that takes a while.
describe("the streamed preview's first piece", { timeout: propertyTimeout(180_000) }, () => {
  it.each(platforms)("is the whole text's first piece (%s)", (_name, chunk, numRuns) => {
    fc.assert(
      fc.property(markdown, fc.integer({ min: 40, max: 400 }), (text, limit) => {
        // Cut whole, as the session did on every update before the window.
        const whole = (chunk ? chunk(text, limit) : chunkText(text, limit))[0] ?? "";
        expect(firstPiece(gatewayOf(limit, chunk), text)).toBe(whole);
      }),
      runs(numRuns),
    );
  });

  it("cuts a window near the first piece, not a reply many messages long", () => {
    const limit = 200;
    const text = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} says something useful.`).join("\n\n");
    const seen: number[] = [];
    const piece = firstPiece(gatewayOf(limit, telegramPieces, seen), text);
    expect(piece).toBe(telegramPieces(text, limit)[0]);
    expect(text.length).toBeGreaterThan(50 * limit);
    expect(Math.max(...seen)).toBeLessThanOrEqual(8 * limit);
  });

  it("cuts the whole text when a reference definition further on gives an earlier link its target", () => {
    const limit = 60;
    const filler = Array.from({ length: 40 }, (_, i) => `Line ${i} of the answer.`).join("\n\n");
    const text = `See [the docs][1] first.\n\n${filler}\n\n[1]: https://example.com/docs`;
    const whole = telegramPieces(text, limit)[0];
    // The definition makes `[the docs][1]` a link (shown as its text); without it the brackets stay.
    expect(whole?.startsWith("See the docs first.")).toBe(true);
    expect(firstPiece(gatewayOf(limit, telegramPieces), text)).toBe(whole);
  });
});
