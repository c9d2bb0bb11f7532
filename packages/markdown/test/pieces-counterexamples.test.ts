// Counterexamples fast-check found in the pieces properties (test/pieces-property.test.ts) on long
// local runs (MARKDOWN_PROPERTY_RUNS), each kept as the behaviour it broke.
import { describe, expect, it } from "vitest";
import { slackPieces, toMrkdwn } from "../src/index.js";

describe("pieces show what the whole shows", () => {
  it("Slack: a list item of raw HTML written back alone keeps the text after the tag as text, not a link", () => {
    // Seed 7, path 12327:3:8:7:7: `<script>` opens an HTML block, so the whole shows `[é](…)` as
    // typed; the item, written back with the block as a bare text node, lost its escapes and the
    // piece showed a link (shorter, so it was the one that fitted 83).
    const md = "- <script>x</script> [é](https://en.wikipedia.org/wiki/Mercury_(planet))\n\n- alpha";
    const pieces = slackPieces(md, 83).map(toMrkdwn);
    // The brackets shown as typed, no `<url|é>` link (the bare URL may be Slack's `<url>`, as Slack
    // links a URL in text anyway).
    expect(pieces.join("\n")).toContain("[é](");
    expect(pieces.join("\n")).not.toContain("|é>");
    for (const piece of pieces) expect(piece.length, piece).toBeLessThanOrEqual(83);
  });
});
