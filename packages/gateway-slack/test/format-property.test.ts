// Random Markdown with links (some with parentheses and spaces in their text) rendered as mrkdwn and
// cut at a small limit: no piece ends inside a `<url|text>` token, and the pieces hold the whole.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkMrkdwn, markdownToMrkdwn } from "../src/format.js";

const word = fc.constantFrom("alpha", "b<c", "d&e", "**bold**", "*it*", "~~x~~", "`co de`", "snake_case");
const link = fc
  .tuple(
    fc.constantFrom("the notes", "a b c", "x"),
    fc.constantFrom("https://e.test/a", "https://e.test/w_(p)"),
  )
  .map(([text, url]) => `[${text}](${url})`);
const markdown = fc
  .array(fc.oneof(word, link), { minLength: 1, maxLength: 40 })
  .map((parts) => parts.join(" "));

/** Every `<` opens a link token closed in the same piece, and no `>` stands alone. */
const tokensWhole = (piece: string) => !/[<>]/.test(piece.replace(/<[^<>|\s]+(\|[^<>|]*)?>/g, ""));

describe("mrkdwn pieces of random Markdown", () => {
  it("never cut a link token, and together equal the whole", () => {
    fc.assert(
      fc.property(markdown, fc.integer({ min: 60, max: 200 }), (md, limit) => {
        const whole = markdownToMrkdwn(md);
        const pieces = chunkMrkdwn(whole, limit);
        for (const piece of pieces) {
          expect(piece.length).toBeLessThanOrEqual(limit);
          expect(tokensWhole(piece), piece).toBe(true);
        }
        expect(pieces.join("").replace(/\s+/g, "")).toBe(whole.replace(/\s+/g, ""));
      }),
      { numRuns: 300 },
    );
  });
});
